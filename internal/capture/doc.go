// Package capture is where what an application said enters hone: the
// conversations testers have with it, the sessions they fall into (one per
// prompt version, or from a !reset to the next), and the turns, each an
// exchange of a user message and a response with its retrieval context and
// timing. The turn is the shared record every capability judges: tuning
// attaches notes, scoring measures it, workshops review turns as traces, and
// thumbs and learnings cite them.
//
// Turns are validated, cleaned (see hone.CleanText) and measured here, in the
// domain, before the store writes them; the store only decides, inside its
// transaction, which session a turn belongs to and its number there.
package capture

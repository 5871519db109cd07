// Package tuning is the prompt-tuning capability: the improvement notes
// testers attach to turns, the chat commands that drive a tuning session
// (!improve, !print, !export-json, !reset, !session, !sessions, !resume) and
// the session's CSV and JSON exports. Sessions and turns themselves are the
// capture package's. It imports neither SQL nor HTTP; storage implements Store.
package tuning

// Package learning is hone's learning loop: testers rate responses with
// 👍/👎 (in chat or through the API), a 👎 asks what should have been done
// differently and keeps the answer as a correction, an LLM synthesises the
// corrections into learning statements, and the active ones become the
// "User Preferences (Learned)" section of the system prompt. Learnings never
// weaken the protected rules of the base prompt, are applied only from a
// confidence threshold on, and conflicting ones wait for their owner.
// Applications that send proactive alerts ask it for a permit within a
// daily budget that feedback on the alerts moves.
package learning

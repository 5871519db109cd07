// Package tuning holds prompt-tuning sessions: the turns a tester has with the
// application under test, the improvement notes attached to them, the chat
// commands that drive a session (!improve, !print, !reset, …) and the CSV and
// JSON exports. It imports neither SQL nor HTTP; storage implements Store.
package tuning

// Package suggestions is hone's suggestion-tracking capability: it takes
// the records applications make with the suggest library (over the API or
// from their JSONL history), keeps them with every field, answers the
// spec's questions about them (acceptance by match type, position,
// version, model and temperature; time to action; cycling; context size
// and tokens against outcome; the five negative signals), exports them as
// training sets, and forgets a session on request.
//
// Statistics are read from rollups kept beside the records: each record,
// when it is stored, adds one to the counts of its day, server and
// version under each question, so that the statistics of a million
// records read a few thousand rows.
package suggestions

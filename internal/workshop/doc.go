// Package workshop is the discovery-workshop capability: a facilitator and a
// group of subject-matter experts review traces (the turns of an LLM
// application) GOOD or BAD with a comment, answer three AI follow-up
// questions per trace, and the facilitator has the feedback analysed into
// findings and disagreements, promotes what matters into a draft rubric and
// groups it into rubric questions. It follows hone's discovery-workshop spec.
//
// The package holds the domain: types, validation, roles, the phase state
// machine, trace import and JSONPath extraction, disagreement detection,
// agreement statistics and the LLM prompts. It imports neither SQL nor HTTP:
// storage implements Store, and the API, the CLI and the web pages are thin
// faces over Service.
package workshop

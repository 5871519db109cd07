package workshop

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// DefaultFollowupSystemPrompt is the spec's system prompt of follow-up
// questions (a UX researcher interviewing the reviewer).
const DefaultFollowupSystemPrompt = `You are a senior UX researcher analyzing chatbot responses. Your job is to ask
the person giving feedback sharp, specific follow-up questions that extract
actionable insights about how the chatbot response could be improved.
Focus on clarifying: what specific aspect was problematic, what would make it
better, concrete examples, and priority. Do NOT act as the chatbot - you are
interviewing the feedback provider about their opinion of the chatbot's response.`

// DefaultFollowupUserPrompt is the spec's user prompt of follow-up
// questions. Its placeholders are {trace.input}, {trace.output},
// {feedback.label}, {feedback.comment} and {formatted_qna_history}.
const DefaultFollowupUserPrompt = `CONVERSATION BEING REVIEWED:
Input: {trace.input}
Output: {trace.output}

REVIEWER'S FEEDBACK:
Label: {feedback.label}
Comment: {feedback.comment}
Prior Q/A with reviewer:
{formatted_qna_history}

Your question to the REVIEWER (about their feedback):`

// FallbackQuestions are the generic follow-up questions, by question
// number, given when the LLM cannot be reached after three attempts, so
// that a participant is never blocked.
var FallbackQuestions = [Questions]string{
	"What specific part of the response made you rate it this way?",
	"What would a better response have said or done differently?",
	"How important is this to you compared with other problems or strengths you noticed, and why?",
}

// FailedAttempts is how many failed LLM attempts at one question give the
// fallback question.
const FailedAttempts = 3

// followupPrompts returns the system and user prompts of question number
// for a trace and a feedback record, with the workshop's overrides.
func followupPrompts(w *Workshop, t *Trace, f *Feedback) (system, user string) {
	system, user = DefaultFollowupSystemPrompt, DefaultFollowupUserPrompt
	if w.FollowupSystemPrompt != "" {
		system = w.FollowupSystemPrompt
	}
	if w.FollowupUserPrompt != "" {
		user = w.FollowupUserPrompt
	}
	var qna strings.Builder
	for i, qa := range f.FollowupQnA {
		fmt.Fprintf(&qna, "Q%d: %s\nA%d: %s\n", i+1, qa.Question, i+1, qa.Answer)
	}
	history := strings.TrimRight(qna.String(), "\n")
	if history == "" {
		history = "(none yet)"
	}
	r := strings.NewReplacer("{trace.input}", promptText(t.InputText), "{trace.output}", promptText(t.OutputText),
		"{feedback.label}", strings.ToUpper(f.Label), "{feedback.comment}", f.Comment, "{formatted_qna_history}", history)
	return system, r.Replace(user)
}

// promptText is a trace's text as a prompt holds it: at most MaxTextLength
// characters, the cut marked, since a trace imported before hone bounded
// its JSONPath extraction can hold more.
func promptText(s string) string {
	if len(s) <= MaxTextLength {
		return s
	}
	n := 0
	for i := range s {
		if n == MaxTextLength-1 {
			if utf8.RuneCountInString(s[i:]) == 1 {
				return s
			}
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// cleanQuestion trims a generated question of the quoting and labels small
// models put around it.
func cleanQuestion(q string) string {
	q = strings.TrimSpace(q)
	for _, prefix := range []string{"Question:", "Q:", "**Question:**"} {
		q = strings.TrimSpace(strings.TrimPrefix(q, prefix))
	}
	return strings.TrimSpace(strings.Trim(q, "\"“”"))
}

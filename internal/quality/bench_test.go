package quality

import (
	"encoding/json"
	"strings"
	"testing"
)

// benchResponse is a realistic response of about 500 words.
var benchResponse = func() string {
	paras := []string{
		"Got it — that's a difficult situation, and I'm glad you reached out before acting. Per our No Call No Show policy, employees who miss three consecutive scheduled shifts without notifying their manager are considered to have voluntarily resigned. Since Jordan has missed two shifts so far, the policy does not apply yet, but it is important to act now and keep a clear record.",
		"Here's what I recommend as next steps:",
		"1. Try to reach Jordan directly by phone today. Keep the conversation calm and focused on their wellbeing first; there may be a medical or family emergency behind the absences, which could bring FMLA or ADA protections into play.",
		"2. Document every attempt to contact the employee, including the date, time, method and outcome. Note the shifts that were missed and who covered them. Accurate records protect both you and the company if the situation escalates.",
		"3. If Jordan mentions a health condition, a family member's serious illness, or a need for leave, stop the attendance discussion and escalate to HR so they can start the leave review. Do not ask for a diagnosis or medical details yourself.",
		"4. If you cannot reach Jordan after your attempts, let HR know before the third missed shift so they can prepare the appropriate separation paperwork and confirm the policy has been applied consistently with how similar cases were handled.",
		"5. When Jordan returns or responds, hold a private conversation to review the attendance expectations in the handbook, listen to their explanation, and agree on a plan. Record the outcome in their file the same day.",
		"Remember that consistency matters: applying the attendance policy the same way for every team member is the best protection against claims of unfair treatment. Avoid discussing the situation with other team members beyond what is needed to cover the schedule, and keep any information Jordan shares about their health confidential.",
		"According to the Attendance Policy, managers should also review whether the employee received the current schedule and whether any approved time off was overlooked. Scheduling mistakes happen, and confirming that the absences were truly unexcused before taking action keeps the process fair.",
		"It can also help to think about the wider team. Covering unexpected absences is stressful, so thank the people who stepped in, check that nobody is approaching overtime limits, and adjust next week's schedule if needed. If absences like this are becoming a pattern across the club, that is worth raising with your district manager as well.",
		"Finally, take care of yourself in this. Managing attendance problems is one of the harder parts of leading a team, and it is normal to feel frustrated when someone you rely on does not show up. Handling it calmly, fairly and by the book is exactly the right approach, and HR is there to support you at every step.",
		"Would you like me to schedule a call with Jordan for this afternoon so you have a set time to reach out?",
	}
	return strings.Join(paras, "\n\n")
}()

// benchResults are search results as the bot sends them.
var benchResults = json.RawMessage(`[
 {"chunk_text": "No Call No Show Policy. Employees who miss three consecutive scheduled shifts without notifying their manager are considered to have voluntarily resigned their employment. Managers must document each attempt to contact the employee and notify Human Resources before processing a separation.", "similarity": 0.82},
 {"chunk_text": "Attendance Policy. Managers should review the posted schedule and any approved time off before treating an absence as unexcused. Repeated tardiness or absence is addressed through progressive discipline: verbal warning, written warning, final warning and termination.", "similarity": 0.74},
 {"chunk_text": "Leave of Absence. If an employee indicates that an absence relates to their own serious health condition or that of a family member, the manager must refer the matter to Human Resources for FMLA and ADA review and must not request medical details.", "similarity": 0.69}
]`)

func BenchmarkEvaluate500Words(b *testing.B) {
	for _, name := range BuiltinNames {
		b.Run(name, func(b *testing.B) { benchEvaluate500Words(b, Builtin(name)) })
	}
}

// benchEvaluate500Words times set scoring a 500-word response.
func benchEvaluate500Words(b *testing.B, s *Set) {
	ms := 1850.0
	in := Input{
		Query:            "My employee Jordan didn't show up for two shifts this week. What should I do?",
		Response:         benchResponse,
		SearchResults:    benchResults,
		ProcessingTimeMS: &ms,
		IsFirstResponse:  true,
	}
	if n := len(strings.Fields(benchResponse)); n < 450 || n > 550 {
		b.Fatalf("response has %d words, want about 500", n)
	}
	b.ReportAllocs()
	for b.Loop() {
		s.Evaluate(in)
	}
}

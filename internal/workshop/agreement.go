package workshop

import (
	"cmp"
	"slices"
)

// Rating is one member's label of one trace: the only input agreement
// needs, so that it can be computed for any workshop from its feedback.
type Rating struct {
	TraceID string
	UserID  string
	Label   string
}

// TraceAgreement is how much the reviewers of one trace agree, so that a
// facilitator can see which traces split the room.
type TraceAgreement struct {
	TraceID   string `json:"trace_id"`
	Reviewers int    `json:"reviewers"`
	// Labels counts the reviewers by label.
	Labels map[string]int `json:"labels"`
	// Agreement is the share of pairs of reviewers that gave the same
	// label; nil with fewer than 2 reviewers.
	Agreement *float64 `json:"agreement"`
}

// PairAgreement is Cohen's kappa of two members over the traces both
// labelled, so that a facilitator can see who reads the task differently.
type PairAgreement struct {
	UserA    string   `json:"user_a"`
	UserB    string   `json:"user_b"`
	Traces   int      `json:"traces"`
	Observed *float64 `json:"observed_agreement"`
	// Kappa is nil when undefined: no shared traces, or an expected
	// agreement of 1 (both gave one and the same label throughout).
	Kappa *float64 `json:"cohen_kappa"`
}

// Agreement is a workshop's agreement figures, each with the number of
// traces it rests on so that a figure from few traces can be read as such.
// An undefined figure is nil, never NaN or Inf, which JSON cannot carry.
type Agreement struct {
	// Traces is every trace with a rating, in order of first appearance.
	Traces []TraceAgreement `json:"traces"`
	// Pairs is every pair of raters sharing at least one trace, with
	// UserA < UserB, sorted by UserA then UserB.
	Pairs []PairAgreement `json:"pairs"`
	// FleissKappa is Fleiss' kappa generalised to a varying number of
	// raters per trace; FleissTraces counts the traces with at least 2
	// raters it uses.
	FleissKappa  *float64 `json:"fleiss_kappa"`
	FleissTraces int      `json:"fleiss_traces"`
	// KrippendorffAlpha is nominal Krippendorff's alpha; AlphaTraces
	// counts the traces with at least 2 ratings it uses.
	KrippendorffAlpha *float64 `json:"krippendorff_alpha"`
	AlphaTraces       int      `json:"alpha_traces"`
}

// ComputeAgreement computes every figure from ratings, one per trace and
// user: a later duplicate replaces an earlier one. Labels are general
// categories, not only good and bad.
func ComputeAgreement(ratings []Rating) Agreement {
	t := tabulate(ratings)
	a := Agreement{Traces: make([]TraceAgreement, len(t.traces)), Pairs: t.pairs()}
	t.perTrace(&a)
	return a
}

// vote is a deduplicated rating by indices: users by rank of their ID,
// labels by first appearance.
type vote struct{ user, label int32 }

// table holds the ratings as indices, grouped by trace and, within a
// trace, sorted by user, so that the statistics run on slices alone.
type table struct {
	traces []string
	users  []string
	labels []string
	votes  []vote
	// off[t]:off[t+1] are the votes of trace t.
	off []int32
}

// tabulate interns the strings, then sorts the ratings by user and, stably,
// by trace, which puts a user's duplicates side by side in input order.
func tabulate(ratings []Rating) *table {
	n := len(ratings)
	traceOf := make([]int32, n)
	userOf := make([]int32, n)
	labelOf := make([]int32, n)
	traces, users, labels := newInterner(), newInterner(), newInterner()
	for i, r := range ratings {
		traceOf[i] = traces.id(r.TraceID)
		userOf[i] = users.id(r.UserID)
		labelOf[i] = labels.id(r.Label)
	}
	rank, sorted := users.ranks()
	for i, u := range userOf {
		userOf[i] = rank[u]
	}

	byUser, _ := countingSort(nil, n, len(sorted), func(i int32) int32 { return userOf[i] })
	byTrace, _ := countingSort(byUser, n, len(traces.names), func(i int32) int32 { return traceOf[i] })

	t := &table{traces: traces.names, users: sorted, labels: labels.names}
	t.votes = make([]vote, 0, n)
	t.off = make([]int32, len(traces.names)+1)
	for k, i := range byTrace {
		v := vote{userOf[i], labelOf[i]}
		if k > 0 && traceOf[byTrace[k-1]] == traceOf[i] && t.votes[len(t.votes)-1].user == v.user {
			t.votes[len(t.votes)-1] = v
			continue
		}
		t.votes = append(t.votes, v)
		t.off[traceOf[i]+1] = int32(len(t.votes))
	}
	return t
}

// countingSort returns the indices 0..n-1, or those of order when given,
// stably sorted by key, which is below buckets, and the bounds of the
// buckets: bucket b is out[bounds[b]:bounds[b+1]].
func countingSort(order []int32, n, buckets int, key func(int32) int32) (out, bounds []int32) {
	bounds = make([]int32, buckets+1)
	for i := range int32(n) {
		bounds[key(i)+1]++
	}
	for b := range buckets {
		bounds[b+1] += bounds[b]
	}
	start := slices.Clone(bounds[:buckets])
	out = make([]int32, n)
	for k := range int32(n) {
		i := k
		if order != nil {
			i = order[k]
		}
		b := key(i)
		out[start[b]] = i
		start[b]++
	}
	return out, bounds
}

// perTrace fills the per-trace figures, Fleiss' kappa and Krippendorff's
// alpha, which all rest on the label counts n_ic of each trace i with n_i
// votes. Fleiss: P_i = Σ_c n_ic(n_ic−1) / (n_i(n_i−1)), P̄ its mean and
// P̄e = Σ_c p_c² with p_c the share of label c, both over the traces with
// n_i ≥ 2. Nominal alpha needs only the diagonal of the coincidence
// matrix, o_cc = Σ_i n_ic(n_ic−1)/(n_i−1), and its marginals, which are the
// same label totals n_c: α = 1 − (n−1)(n − Σ o_cc) / (n² − Σ n_c²).
func (t *table) perTrace(a *Agreement) {
	count := make([]int64, len(t.labels))
	total := make([]int64, len(t.labels))
	present := make([]int32, 0, len(t.labels))
	shares := make([]float64, len(t.traces))
	var (
		sumP     float64 // Σ P_i over traces with n_i ≥ 2
		diagonal float64 // Σ_c o_cc of the coincidence matrix
		pairable int
	)
	for tr := range t.traces {
		votes := t.votes[t.off[tr]:t.off[tr+1]]
		for _, v := range votes {
			if count[v.label] == 0 {
				present = append(present, v.label)
			}
			count[v.label]++
		}
		n := int64(len(votes))
		ta := TraceAgreement{TraceID: t.traces[tr], Reviewers: len(votes), Labels: make(map[string]int, len(present))}
		var matching int64
		for _, l := range present {
			c := count[l]
			ta.Labels[t.labels[l]] = int(c)
			matching += c * (c - 1)
		}
		if n >= 2 {
			shares[tr] = float64(matching) / float64(n*(n-1))
			ta.Agreement = &shares[tr]
			sumP += shares[tr]
			diagonal += float64(matching) / float64(n-1)
			pairable++
			for _, l := range present {
				total[l] += count[l]
			}
		}
		for _, l := range present {
			count[l] = 0
		}
		present = present[:0]
		a.Traces[tr] = ta
	}
	a.FleissTraces, a.AlphaTraces = pairable, pairable
	var n, sumSq int64
	used := 0
	for _, c := range total {
		n += c
		sumSq += c * c
		if c > 0 {
			used++
		}
	}
	if used < 2 {
		return
	}
	pe := float64(sumSq) / float64(n*n)
	kappa := (sumP/float64(pairable) - pe) / (1 - pe)
	a.FleissKappa = &kappa
	alpha := 1 - float64(n-1)*(float64(n)-diagonal)/float64(n*n-sumSq)
	a.KrippendorffAlpha = &alpha
}

// pairs computes Cohen's kappa for every pair sharing a trace. For each
// user a it walks a's votes and, in each of those traces, the votes of the
// users after a, accumulating into per-user scratch slices; the pairs of a
// are then read off and the scratch reset.
func (t *table) pairs() []PairAgreement {
	nu, nl := len(t.users), len(t.labels)
	traceOf := make([]int32, len(t.votes))
	for tr := range t.traces {
		for p := t.off[tr]; p < t.off[tr+1]; p++ {
			traceOf[p] = int32(tr)
		}
	}
	byUser, userOff := countingSort(nil, len(t.votes), nu, func(p int32) int32 { return t.votes[p].user })

	shared := make([]int64, nu)
	agreed := make([]int64, nu)
	marginA := make([]int64, nu*nl)
	marginB := make([]int64, nu*nl)
	var touched []int32
	var out []PairAgreement
	for a := range int32(nu) {
		for _, p := range byUser[userOff[a]:userOff[a+1]] {
			la := t.votes[p].label
			end := t.off[traceOf[p]+1]
			for _, v := range t.votes[p+1 : end] {
				b := v.user
				if shared[b] == 0 {
					touched = append(touched, b)
				}
				shared[b]++
				agreed[b] += same(v.label, la)
				marginA[int(b)*nl+int(la)]++
				marginB[int(b)*nl+int(v.label)]++
			}
		}
		slices.Sort(touched)
		for _, b := range touched {
			mA := marginA[int(b)*nl : int(b+1)*nl]
			mB := marginB[int(b)*nl : int(b+1)*nl]
			out = append(out, cohen(t.users[a], t.users[b], shared[b], agreed[b], mA, mB))
			shared[b], agreed[b] = 0, 0
			clear(mA)
			clear(mB)
		}
		touched = touched[:0]
	}
	if out == nil {
		out = []PairAgreement{}
	}
	return out
}

// same is 1 when the labels are equal and 0 otherwise, without a branch
// that random labels would mispredict.
func same(x, y int32) int64 {
	if x == y {
		return 1
	}
	return 0
}

// cohen is Cohen's kappa from n shared traces, the agreed count and each
// rater's label counts, computed as (n·agreed − Σ a_k b_k) / (n² − Σ a_k b_k)
// in integers so that the undefined case is exact.
func cohen(userA, userB string, n, agreed int64, marginA, marginB []int64) PairAgreement {
	var chance int64
	for k, c := range marginA {
		chance += c * marginB[k]
	}
	observed := float64(agreed) / float64(n)
	pa := PairAgreement{UserA: userA, UserB: userB, Traces: int(n), Observed: &observed}
	if chance != n*n {
		kappa := float64(n*agreed-chance) / float64(n*n-chance)
		pa.Kappa = &kappa
	}
	return pa
}

// interner maps strings to dense indices in order of first appearance,
// skipping the map when a string repeats the previous one.
type interner struct {
	ids    map[string]int32
	names  []string
	last   string
	lastID int32
}

func newInterner() *interner { return &interner{ids: map[string]int32{}} }

func (in *interner) id(s string) int32 {
	if len(in.names) > 0 && s == in.last {
		return in.lastID
	}
	id, ok := in.ids[s]
	if !ok {
		id = int32(len(in.names))
		in.ids[s] = id
		in.names = append(in.names, s)
	}
	in.last, in.lastID = s, id
	return id
}

// ranks returns each index's rank among the sorted names, and the sorted
// names.
func (in *interner) ranks() ([]int32, []string) {
	order := make([]int32, len(in.names))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int { return cmp.Compare(in.names[x], in.names[y]) })
	rank := make([]int32, len(order))
	sorted := make([]string, len(order))
	for r, i := range order {
		rank[i] = int32(r)
		sorted[r] = in.names[i]
	}
	return rank, sorted
}

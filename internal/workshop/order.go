package workshop

import "hash/fnv"

// order returns the order in which member sees the first n traces: 0…n-1,
// or, when randomize is set, a shuffle of its own. The shuffle is a
// Fisher–Yates driven by SplitMix64 seeded from the workshop and member
// ids, written out here so that it stays the same across reloads, restarts
// and Go releases.
func order(workshopID, memberID string, n int, randomize bool) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	if !randomize {
		return out
	}
	h := fnv.New64a()
	h.Write([]byte(workshopID))
	h.Write([]byte{0})
	h.Write([]byte(memberID))
	state := h.Sum64()
	next := func() uint64 {
		state += 0x9e3779b97f4a7c15
		z := state
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		return z ^ (z >> 31)
	}
	for i := n - 1; i > 0; i-- {
		j := int(next() % uint64(i+1))
		out[i], out[j] = out[j], out[i]
	}
	return out
}

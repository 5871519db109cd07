package hone

// SpreadsheetSafe returns s as a CSV cell a spreadsheet shows as text: a
// cell that begins with =, +, -, @, a tab or a carriage return would be read
// as a formula (CSV formula injection), so it gets a leading apostrophe, the
// usual neutraliser, unless it is a plain decimal number such as -5 or
// +1.5e3. Every other cell is returned as is.
func SpreadsheetSafe(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '@', '\t', '\r':
	case '+', '-':
		if decimal(s[1:]) {
			return s
		}
	default:
		return s
	}
	return "'" + s
}

// decimal reports whether s is digits with an optional fraction and
// exponent, and nothing else.
func decimal(s string) bool {
	digits := func(i int) int {
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		return j
	}
	i := digits(0)
	whole := i > 0
	if i < len(s) && s[i] == '.' {
		j := digits(i + 1)
		if !whole && j == i+1 {
			return false
		}
		whole, i = true, j
	}
	if !whole {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return false
		}
		i = j
	}
	return i == len(s)
}

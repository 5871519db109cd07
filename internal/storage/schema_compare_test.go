package storage_test

import (
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// compareSchemas returns every difference between the schema migrations give
// SQLite and the one they give PostgreSQL, one line each, naming the table
// (and column, key or index) and both sides. Column types are compared
// through sqliteTypes; the order of columns, keys and indexes does not count.
func compareSchemas(lite, pg dbSchema) []string {
	var out []string
	for _, name := range sortedUnion(lite, pg) {
		l, p := lite[name], pg[name]
		switch {
		case p == nil:
			out = append(out, name+": table only in sqlite")
			continue
		case l == nil:
			out = append(out, name+": table only in postgres")
			continue
		}
		out = append(out, compareColumns(name, l.columns, p.columns)...)
		if l.primaryKey != p.primaryKey {
			out = append(out, fmt.Sprintf("%s: primary key: sqlite %s vs postgres %s", name, orNone(l.primaryKey), orNone(p.primaryKey)))
		}
		out = append(out, onlyInOne(name+": unique", l.uniques, p.uniques)...)
		out = append(out, compareForeignKeys(name, l.foreignKeys, p.foreignKeys)...)
		out = append(out, onlyInOne(name+": check", l.checks, p.checks)...)
		for _, ix := range sortedUnion(l.indexes, p.indexes) {
			li, lok := l.indexes[ix]
			pi, pok := p.indexes[ix]
			switch {
			case !pok:
				out = append(out, fmt.Sprintf("%s: index %s %s: only in sqlite", name, ix, li))
			case !lok:
				out = append(out, fmt.Sprintf("%s: index %s %s: only in postgres", name, ix, pi))
			case li != pi:
				out = append(out, fmt.Sprintf("%s: index %s: sqlite %s vs postgres %s", name, ix, li, pi))
			}
		}
		if l.rows != p.rows {
			out = append(out, fmt.Sprintf("%s: rows after migrating: sqlite %d vs postgres %d", name, l.rows, p.rows))
		}
	}
	return out
}

func compareColumns(table string, lite, pg map[string]schemaColumn) []string {
	var out []string
	for _, name := range sortedUnion(lite, pg) {
		l, lok := lite[name]
		p, pok := pg[name]
		at := table + "." + name
		switch {
		case !pok:
			out = append(out, at+": column only in sqlite")
			continue
		case !lok:
			out = append(out, at+": column only in postgres")
			continue
		}
		want, mapped := sqliteTypes[p.typ]
		switch {
		case !mapped:
			out = append(out, fmt.Sprintf("%s: type: sqlite %s vs postgres %s, which has no SQLite mapping (add one to sqliteTypes)", at, l.typ, p.typ))
		case !slices.Contains(want, l.typ):
			out = append(out, fmt.Sprintf("%s: type: sqlite %s vs postgres %s (maps to %s)", at, l.typ, p.typ, strings.Join(want, " or ")))
		}
		if l.notNull != p.notNull {
			out = append(out, fmt.Sprintf("%s: nullability: sqlite %s vs postgres %s", at, nullability(l.notNull), nullability(p.notNull)))
		}
		if normalizeDefault(l.dflt, p.typ) != normalizeDefault(p.dflt, p.typ) {
			out = append(out, fmt.Sprintf("%s: default: sqlite %s vs postgres %s", at, orNone(l.dflt), orNone(p.dflt)))
		}
	}
	return out
}

// compareForeignKeys pairs the foreign keys of a table by their columns, so
// that a key whose target or actions differ is one line with both sides.
func compareForeignKeys(table string, lite, pg []string) []string {
	byColumns := func(keys []string) map[string]string {
		m := map[string]string{}
		for _, k := range keys {
			cols, rest, _ := strings.Cut(k, " REFERENCES ")
			if _, dup := m[cols]; dup {
				cols += " " + rest
			}
			m[cols] = "REFERENCES " + rest
		}
		return m
	}
	l, p := byColumns(lite), byColumns(pg)
	var out []string
	for _, cols := range sortedUnion(l, p) {
		lr, lok := l[cols]
		pr, pok := p[cols]
		switch {
		case !pok:
			out = append(out, fmt.Sprintf("%s: foreign key %s %s: only in sqlite", table, cols, lr))
		case !lok:
			out = append(out, fmt.Sprintf("%s: foreign key %s %s: only in postgres", table, cols, pr))
		case lr != pr:
			out = append(out, fmt.Sprintf("%s: foreign key %s: sqlite %s vs postgres %s", table, cols, lr, pr))
		}
	}
	return out
}

func onlyInOne(what string, lite, pg []string) []string {
	var out []string
	for _, v := range lite {
		if !slices.Contains(pg, v) {
			out = append(out, fmt.Sprintf("%s %s: only in sqlite", what, v))
		}
	}
	for _, v := range pg {
		if !slices.Contains(lite, v) {
			out = append(out, fmt.Sprintf("%s %s: only in postgres", what, v))
		}
	}
	return out
}

func sortedUnion[V any](a, b map[string]V) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

func nullability(notNull bool) string {
	if notNull {
		return "NOT NULL"
	}
	return "NULL"
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

var (
	// castPattern matches a PostgreSQL cast as pg_get_expr prints it.
	castPattern = regexp.MustCompile(`::[a-z_][a-z0-9_]*(?: precision| varying| with(?:out)? time zone)?(?:\[\])?`)
	// anyArray and allArray match how PostgreSQL prints IN and NOT IN lists.
	anyArray      = regexp.MustCompile(`(?i)=\s*ANY\s*\(\s*ARRAY\[(.*?)\]\s*\)`)
	allArray      = regexp.MustCompile(`(?i)<>\s*ALL\s*\(\s*ARRAY\[(.*?)\]\s*\)`)
	operatorSpace = regexp.MustCompile(`\s*(<>|<=|>=|=|<|>)\s*`)
	spaceRun      = regexp.MustCompile(`\s+`)
	commaSpace    = regexp.MustCompile(`\s*,\s*`)
	quotedNumber  = regexp.MustCompile(`^'(-?[0-9]+(?:\.[0-9]+)?)'$`)
)

// normalizeExpr puts a CHECK expression or an index predicate in one form
// for both dialects: without casts and parentheses, IN for PostgreSQL's
// = ANY (ARRAY[…]), keywords and names in lower case, one space between
// words and around comparisons; string literals as written. Parentheses do not count, so (a OR b) AND c
// and a OR (b AND c) compare equal: a limit of this comparison.
func normalizeExpr(e string) string {
	e = castPattern.ReplaceAllString(e, "")
	e = anyArray.ReplaceAllString(e, " IN ($1)")
	e = allArray.ReplaceAllString(e, " NOT IN ($1)")
	e = outsideQuotes(e, func(s string) string {
		s = strings.NewReplacer("(", " ", ")", " ", "!=", "<>").Replace(strings.ToLower(s))
		s = spaceRun.ReplaceAllString(s, " ")
		s = operatorSpace.ReplaceAllString(s, " $1 ")
		return commaSpace.ReplaceAllString(s, ", ")
	})
	return strings.TrimSpace(e)
}

// normalizeDefault puts a column default in one form for both dialects,
// given the column's PostgreSQL type: without casts or outer parentheses,
// keywords in lower case, a number unquoted, and a boolean as true or false
// (SQLite keeps booleans as 0 and 1).
func normalizeDefault(d, pgType string) string {
	d = strings.TrimSpace(castPattern.ReplaceAllString(d, ""))
	for strings.HasPrefix(d, "(") && strings.HasSuffix(d, ")") {
		d = strings.TrimSpace(d[1 : len(d)-1])
	}
	if m := quotedNumber.FindStringSubmatch(d); m != nil && pgType != "text" && pgType != "json" && pgType != "jsonb" {
		d = m[1]
	}
	d = outsideQuotes(d, strings.ToLower)
	if pgType == "boolean" {
		switch d {
		case "0", "'f'", "'false'":
			d = "false"
		case "1", "'t'", "'true'":
			d = "true"
		}
	}
	return d
}

// outsideQuotes applies f to the parts of s outside '…' and "…" quotes.
func outsideQuotes(s string, f func(string) string) string {
	var b strings.Builder
	for s != "" {
		i := strings.IndexAny(s, `'"`)
		if i < 0 {
			b.WriteString(f(s))
			break
		}
		b.WriteString(f(s[:i]))
		end := strings.IndexByte(s[i+1:], s[i])
		if end < 0 {
			b.WriteString(s[i:])
			break
		}
		b.WriteString(s[i : i+end+2])
		s = s[i+end+2:]
	}
	return b.String()
}

// migrationName is how a migration file is named: a five-digit version and
// words, the same name in both dialects.
var migrationName = regexp.MustCompile(`^[0-9]{5}_[a-z0-9_]+\.sql$`)

// pairMigrations returns what keeps the two migration trees from holding the
// same changes: a file in one dialect only, or a name goose and the
// convention do not expect.
func pairMigrations(lite, pg fs.FS) ([]string, error) {
	names := func(fsys fs.FS) (map[string]bool, error) {
		entries, err := fs.ReadDir(fsys, ".")
		if err != nil {
			return nil, err
		}
		m := map[string]bool{}
		for _, e := range entries {
			m[e.Name()] = true
		}
		return m, nil
	}
	l, err := names(lite)
	if err != nil {
		return nil, err
	}
	p, err := names(pg)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range sortedUnion(l, p) {
		if !migrationName.MatchString(n) {
			out = append(out, n+": not named NNNNN_words.sql")
		}
		switch {
		case !p[n]:
			out = append(out, n+": only in sqlite")
		case !l[n]:
			out = append(out, n+": only in postgres")
		}
	}
	return out, nil
}

package learning

import (
	"strings"
	"unicode"
)

// LooksLikeCorrection is the heuristic that decides, without an LLM,
// whether text answers "What should I have done differently?" about the
// exchange of userMessage and response. It is a correction when
//
//  1. it holds a correction cue (such as "should", "instead", "wrong",
//     "forgot", "missing", "too", "more", "less", "prefer", "mention",
//     "include", "avoid", "always", "never", "don't"); or
//  2. it shares a content word (four letters or more, not a common word)
//     with the exchange.
//
// Anything else, a new question or request on another subject, a greeting
// or a thank-you, is not, and goes on to the application.
func LooksLikeCorrection(userMessage, response, text string) bool {
	words := wordsOf(text)
	for i, w := range words {
		if correctionCues[w] {
			return true
		}
		if i+1 < len(words) && correctionPairs[w+" "+words[i+1]] {
			return true
		}
	}
	exchange := map[string]bool{}
	for _, w := range wordsOf(userMessage + " " + response) {
		if content(w) {
			exchange[w] = true
		}
	}
	for _, w := range words {
		if content(w) && exchange[w] {
			return true
		}
	}
	return false
}

// wordsOf splits text into lower-case words, keeping apostrophes inside
// words ("didn't").
func wordsOf(text string) []string {
	text = strings.NewReplacer("’", "'", "‘", "'").Replace(strings.ToLower(text))
	return strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}

// content reports whether w says something about a subject: four letters
// or more, and not a common word.
func content(w string) bool {
	return len([]rune(w)) >= 4 && !commonWords[w]
}

// correctionCues are words that say what was wrong or what to do instead.
var correctionCues = setOf("should", "shouldn't", "instead", "wrong", "incorrect", "inaccurate", "forgot", "forgotten",
	"forget", "missed", "missing", "omitted", "didn't", "don't", "doesn't", "wasn't", "isn't", "never", "always",
	"too", "shorter", "longer", "briefer", "concise", "verbose", "wordy", "more", "less", "prefer", "preferred",
	"rather", "better", "mention", "mentioned", "include", "included", "avoid", "stop", "expected", "wanted",
	"mistake", "actually", "use", "keep", "skip", "remember", "correct", "fix")

// correctionPairs are two-word cues.
var correctionPairs = setOf("did not", "do not", "does not", "was not", "is not", "not what", "you need", "need to")

// commonWords are words of four letters or more that say nothing about a
// subject.
var commonWords = setOf("what", "when", "where", "which", "while", "whom", "whose", "that", "this", "these", "those",
	"there", "their", "they", "them", "then", "than", "with", "without", "from", "into", "onto", "about", "above",
	"after", "before", "again", "also", "just", "have", "having", "been", "being", "were", "will", "would", "could",
	"shall", "might", "must", "your", "yours", "mine", "ours", "here", "some", "many", "much", "most", "such", "very",
	"each", "every", "only", "over", "under", "like", "does", "doing", "done", "make", "made", "want", "know", "tell",
	"give", "show", "please", "thanks", "thank", "okay", "hello", "sure", "yeah", "great", "good", "well", "right",
	"today", "tomorrow", "yesterday", "can't", "i'm", "it's", "that's", "what's", "there's", "let's", "you're")

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

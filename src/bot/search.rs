//! Lexical ranking (fxbot DESIGN §11.2 "off"): BM25 over lowercase word tokens, with a boost for
//! the query found as a phrase and a small one for recency. `memories.search`, `memory_search`
//! and `chat_history` rank with it (vectors, when an embedder is on, come on top of it).

/// BM25's term-frequency saturation.
const K1: f64 = 1.2;
/// BM25's length normalisation.
const B: f64 = 0.75;
/// How much the whole query found as a phrase adds (a factor on the BM25 score).
const PHRASE_BOOST: f64 = 0.5;
/// How much being the newest adds (a factor, fading to nothing for the oldest).
const RECENCY_BOOST: f64 = 0.1;

/// The lowercase word tokens of `text` (letters and digits).
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The documents that match `query`, best first: `(index, score)` with the best scoring 1 and
/// the others relative to it. `texts` are given oldest first (the last is the newest), which is
/// the recency the boost uses; equal scores keep the newer first. An empty query matches
/// nothing.
pub fn rank(query: &str, texts: &[&str]) -> Vec<(usize, f64)> {
    let terms = {
        let mut terms = words(query);
        terms.sort();
        terms.dedup();
        terms
    };
    if terms.is_empty() || texts.is_empty() {
        return Vec::new();
    }
    let phrase = words(query).join(" ");
    let docs: Vec<Vec<String>> = texts.iter().map(|t| words(t)).collect();
    let n = docs.len() as f64;
    let average = (docs.iter().map(Vec::len).sum::<usize>() as f64 / n).max(1.0);
    let idf: Vec<f64> = terms
        .iter()
        .map(|term| {
            let with = docs.iter().filter(|d| d.contains(term)).count() as f64;
            ((n - with + 0.5) / (with + 0.5) + 1.0).ln()
        })
        .collect();
    let last = (docs.len().saturating_sub(1)).max(1) as f64;
    let mut scored: Vec<(usize, f64)> = docs
        .iter()
        .enumerate()
        .filter_map(|(index, doc)| {
            let length = doc.len() as f64;
            let mut score = 0.0;
            for (term, idf) in terms.iter().zip(&idf) {
                let tf = doc.iter().filter(|w| *w == term).count() as f64;
                if tf > 0.0 {
                    score += idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * length / average));
                }
            }
            if score <= 0.0 {
                return None;
            }
            if doc.join(" ").contains(&phrase) {
                score *= 1.0 + PHRASE_BOOST;
            }
            score *= 1.0 + RECENCY_BOOST * (index as f64 / last);
            Some((index, score))
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
    let best = scored.first().map_or(1.0, |s| s.1);
    for entry in &mut scored {
        entry.1 /= best;
    }
    scored
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rare_words_phrases_and_recency_order_the_matches() {
        let texts = [
            "the cat sat on the mat",
            "my sister lives in Lisbon and likes green tea",
            "green tea with lemon",
            "coffee in the morning",
        ];
        let ranked = rank("green tea", &texts);
        let order: Vec<usize> = ranked.iter().map(|r| r.0).collect();
        // Both tea memories match; the shorter, newer one is first; the others do not match.
        assert_eq!(order, [2, 1]);
        assert!((ranked[0].1 - 1.0).abs() < 1e-12 && ranked[1].1 < 1.0);
        // A rare word outweighs a common one.
        let ranked = rank("Lisbon the", &texts);
        assert_eq!(ranked[0].0, 1);
        // The phrase in order beats the same words apart.
        let ranked = rank(
            "likes green",
            &["green things he likes", "she likes green tea"],
        );
        assert_eq!(ranked[0].0, 1);
        // Equal texts: the newer first.
        let ranked = rank("tea", &["tea", "tea"]);
        assert_eq!(ranked.iter().map(|r| r.0).collect::<Vec<_>>(), [1, 0]);
        assert!(rank("", &texts).is_empty());
        assert!(rank("tea", &[]).is_empty());
        assert!(rank("zebra", &texts).is_empty());
        assert_eq!(words("Grüne-Tee, 2x!"), ["grüne", "tee", "2x"]);
    }
}

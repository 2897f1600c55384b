//! Generated names for `slug` and `adminTitle`: adjective, colour, animal (`far-salmon-cod`), as the
//! original system does. 80 × 40 × 80 = 256 000 combinations; a clash is caught by the unique
//! index and retried by the repository.

use rand::seq::IndexedRandom;

const ADJECTIVES: &[&str] = &[
    "able", "bold", "brave", "brief", "bright", "broad", "calm", "clean", "clever", "close",
    "cool", "crisp", "curly", "dear", "deep", "eager", "early", "easy", "fair", "far", "fast",
    "fine", "firm", "fond", "free", "fresh", "full", "glad", "good", "grand", "great", "happy",
    "hardy", "high", "jolly", "just", "keen", "kind", "large", "late", "lazy", "light", "little",
    "live", "long", "loud", "lucky", "mild", "modern", "neat", "merry", "nice", "noble", "odd",
    "gentle", "plain", "polite", "proud", "quick", "quiet", "rapid", "rare", "ready", "rich",
    "round", "safe", "sharp", "shy", "silent", "simple", "slow", "smart", "soft", "solid", "still",
    "sunny", "swift", "tall", "warm", "wise",
];

const COLOURS: &[&str] = &[
    "amber", "aqua", "azure", "beige", "black", "blue", "bronze", "brown", "coral", "cream",
    "crimson", "cyan", "gold", "gray", "green", "indigo", "ivory", "jade", "khaki", "lavender",
    "lemon", "lime", "magenta", "maroon", "mint", "navy", "olive", "orange", "peach", "pink",
    "plum", "purple", "red", "rose", "ruby", "salmon", "silver", "tan", "teal", "white",
];

const ANIMALS: &[&str] = &[
    "ant", "bat", "bear", "bee", "bison", "boar", "camel", "cat", "cod", "cow", "crab", "crane",
    "crow", "deer", "dingo", "dog", "dove", "duck", "eagle", "eel", "elk", "emu", "falcon",
    "finch", "fox", "frog", "gecko", "goat", "goose", "hare", "hawk", "heron", "horse", "ibis",
    "koala", "lark", "lemur", "lion", "llama", "lynx", "mole", "moose", "moth", "mouse", "mule",
    "newt", "otter", "owl", "panda", "parrot", "pig", "pike", "puma", "quail", "rabbit", "raven",
    "seal", "shark", "sheep", "skunk", "sloth", "snail", "snake", "sparrow", "squid", "stork",
    "swan", "tiger", "toad", "trout", "tuna", "turtle", "viper", "walrus", "wasp", "whale", "wolf",
    "wombat", "yak", "zebra",
];

/// Three random words.
pub fn three_words() -> [&'static str; 3] {
    let mut rng = rand::rng();
    [
        ADJECTIVES.choose(&mut rng).copied().unwrap_or("calm"),
        COLOURS.choose(&mut rng).copied().unwrap_or("blue"),
        ANIMALS.choose(&mut rng).copied().unwrap_or("cat"),
    ]
}

pub fn random_slug() -> String {
    three_words().join("-")
}

pub fn random_title() -> String {
    three_words().join(" ")
}

/// Whether `w` is one of the words names are made of. None may be a value a field takes ("new",
/// "open" were, and a made-up name read as an order's status on the admin's screens).
pub fn is_name_word(w: &str) -> bool {
    ADJECTIVES.contains(&w) || COLOURS.contains(&w) || ANIMALS.contains(&w)
}

/// Whether `s` is three words these lists make up ("calm jade finch", "far-salmon-cod"): what a
/// record created without a name or an address got instead.
pub fn is_made_up(s: &str) -> bool {
    let w: Vec<&str> = s.split([' ', '-']).collect();
    w.len() == 3 && ADJECTIVES.contains(&w[0]) && COLOURS.contains(&w[1]) && ANIMALS.contains(&w[2])
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_slug_is_three_lowercase_words() {
        let s = super::random_slug();
        let parts: Vec<_> = s.split('-').collect();
        assert_eq!(parts.len(), 3, "{s}");
        assert!(s.chars().all(|c| c.is_ascii_lowercase() || c == '-'), "{s}");
    }
}

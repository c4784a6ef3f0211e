//! Where in a scenario file a value sits, for error messages: the line and
//! column of a key path such as `sim.schedule[2].at_ms`, read from the
//! file's own syntax tree (so a key inside `[sim.rates]` or the third
//! `[[sim.schedule]]` is found there, not at a same-named key elsewhere).

use std::ops::Range;
use toml_edit::{ImDocument, Item};

/// One step of a key path: a key of a table, or an index of an array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seg {
    Key(String),
    Index(usize),
}

/// A key path inside a scenario file, written as the messages print it:
/// `sim.schedule[2].at_ms`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyPath(pub Vec<Seg>);

impl KeyPath {
    /// `key` at the top level, or inside the table `table` (`"sim.rates"`).
    pub fn of(table: Option<&str>, key: &str) -> KeyPath {
        let mut segs: Vec<Seg> = table
            .into_iter()
            .flat_map(|t| t.split('.'))
            .map(|k| Seg::Key(k.to_string()))
            .collect();
        segs.push(Seg::Key(key.to_string()));
        KeyPath(segs)
    }

    /// The table `t` (`"sim.expect"`) itself.
    pub fn table(t: &str) -> KeyPath {
        KeyPath(t.split('.').map(|k| Seg::Key(k.to_string())).collect())
    }

    pub fn key(mut self, k: &str) -> KeyPath {
        self.0.push(Seg::Key(k.to_string()));
        self
    }

    pub fn index(mut self, i: usize) -> KeyPath {
        self.0.push(Seg::Index(i));
        self
    }
}

impl std::fmt::Display for KeyPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, s) in self.0.iter().enumerate() {
            match s {
                Seg::Key(k) if i == 0 => write!(f, "{k}")?,
                Seg::Key(k) => write!(f, ".{k}")?,
                Seg::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

/// The span of `path` in `text`: the key's own span for a key (the start
/// of its line's `key = ...`), the element's for an index. A path that
/// goes further than the file (a default that was never written) gives the
/// span of the deepest part that exists: the table it would be in.
pub fn span_of(text: &str, path: &KeyPath) -> Option<Range<usize>> {
    let doc = ImDocument::parse(text).ok()?;
    let mut best = None;
    let mut here = Here::Item(doc.as_item());
    for seg in &path.0 {
        here = match seg {
            Seg::Key(k) => {
                let Some((key, value)) = here.table().and_then(|t| t.get_key_value(k)) else {
                    break;
                };
                best = key.span().or_else(|| value.span()).or(best);
                Here::Item(value)
            }
            Seg::Index(i) => {
                if let Some(t) = here.tables().and_then(|a| a.get(*i)) {
                    best = t.span().or(best);
                    Here::Table(t)
                } else if let Some(v) = here.array().and_then(|a| a.get(*i)) {
                    best = v.span().or(best);
                    Here::Value(v)
                } else {
                    break;
                }
            }
        };
    }
    best
}

/// Where a walk down a key path stands.
#[derive(Clone, Copy)]
enum Here<'a> {
    Item(&'a Item),
    /// One table of an array of tables.
    Table(&'a toml_edit::Table),
    /// An element of an inline array.
    Value(&'a toml_edit::Value),
}

impl<'a> Here<'a> {
    fn table(self) -> Option<&'a dyn toml_edit::TableLike> {
        match self {
            Here::Item(i) => i.as_table_like(),
            Here::Table(t) => Some(t),
            Here::Value(v) => v.as_inline_table().map(|t| t as &dyn toml_edit::TableLike),
        }
    }

    fn tables(self) -> Option<&'a toml_edit::ArrayOfTables> {
        match self {
            Here::Item(i) => i.as_array_of_tables(),
            _ => None,
        }
    }

    fn array(self) -> Option<&'a toml_edit::Array> {
        match self {
            Here::Item(i) => i.as_array(),
            Here::Value(v) => v.as_array(),
            Here::Table(_) => None,
        }
    }
}

/// The 1-based line and column (in characters) of byte `offset` in `text`.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut at = offset.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, path: KeyPath) -> Option<(usize, usize)> {
        span_of(text, &path).map(|r| line_column(text, r.start))
    }

    #[test]
    fn keys_are_found_in_their_own_table() {
        let text = "recipe = \"x\"\nclients = 2\n[sim]\nclients = 0\n[sim.rates]\nexpire = -1.0\n";
        assert_eq!(at(text, KeyPath::of(None, "clients")), Some((2, 1)));
        assert_eq!(at(text, KeyPath::of(Some("sim"), "clients")), Some((4, 1)));
        assert_eq!(
            at(text, KeyPath::of(Some("sim.rates"), "expire")),
            Some((6, 1))
        );
    }

    #[test]
    fn an_array_of_tables_and_an_array_element_are_found() {
        let text = "[[sim.schedule]]\nat_ms = 1\nfault = \"expire\"\n\n[[sim.schedule]]\nat_ms = -1\n\n[expect]\nverdict = \"holds\"\nholds = [\"a\", \"b\"]\n";
        let second = KeyPath::of(Some("sim"), "schedule").index(1);
        assert_eq!(at(text, second.clone().key("at_ms")), Some((6, 1)));
        assert_eq!(at(text, second.key("fault")), Some((5, 1)));
        let b = KeyPath::of(Some("expect"), "holds").index(1);
        assert_eq!(at(text, b), Some((10, 15)));
    }

    #[test]
    fn inline_tables_are_found_too() {
        let text = "recipe = \"x\"\nsim = { rates = { pause = -2.0 } }\n";
        assert_eq!(
            at(text, KeyPath::of(Some("sim.rates"), "pause")),
            Some((2, 19))
        );
    }

    #[test]
    fn a_missing_key_falls_back_to_its_table() {
        let text = "recipe = \"x\"\n\n[sim]\nseeds = 3\n";
        // The table's own name in its header, `[sim]`.
        assert_eq!(at(text, KeyPath::of(Some("sim"), "think_ms")), Some((3, 2)));
    }

    #[test]
    fn columns_count_characters_and_offsets_inside_a_character_are_safe() {
        let text = "a = \"é\"\nb";
        assert_eq!(line_column(text, 9), (2, 1));
        assert_eq!(line_column(text, 6), (1, 6));
        assert_eq!(line_column(text, 1000), (2, 2));
    }
}

//! A backend's fault budgets declared once: one row a fault class (its
//! scenario key is its field's name), from which the budget struct, its
//! `[faults]` reading and its key list in file order all come. Adding a
//! fault class to a backend is one row here plus its semantics (the
//! checker's action) and its comparison column.

/// `fault_budget! { /// doc  pub struct Name { /// doc  key, … } }`: the
/// struct (a `u8` per class, read from `[faults]` by these names, a key it
/// does not name an error listing them), `Name::by_key()` (every budget by
/// its key, in this order: the file's) and `Name::packed()` (every budget
/// in one word, for a fingerprint that folds it at once).
macro_rules! fault_budget {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $( $(#[$doc:meta])* $key:ident, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct $name {
            $( $(#[$doc])* pub $key: u8, )*
        }

        impl $name {
            /// Every budget by its scenario-file key (`[faults]`), in file
            /// order.
            pub fn by_key(&self) -> [(&'static str, u8); [$(stringify!($key)),*].len()] {
                [$((stringify!($key), self.$key)),*]
            }

            /// Every budget in one word, for the fingerprint: a derived
            /// `Hash` folds each byte on its own, for every transition.
            pub fn packed(&self) -> u128 {
                const _: () = assert!([$(stringify!($key)),*].len() <= 16, "a budget per byte");
                let mut bytes = [0u8; 16];
                let mut at = 0;
                $(
                    bytes[at] = self.$key;
                    at += 1;
                )*
                let _ = at;
                u128::from_le_bytes(bytes)
            }
        }
    };
}

pub(crate) use fault_budget;

//! A command backend's fault classes declared once, one row a class: its
//! comparison column (id, label, legend sentence), the scenario key and
//! budget field it sets, and the simulator's strike for it. The model's
//! budget struct (`fault_budget!`) holds the keys and the checker's
//! action; this table holds the rest, and a test per backend
//! ([`same_keys`]) holds the two to the same keys.

/// `fault_table! { pub static COLUMNS: [FaultClass<Space>]; strikes
/// STRIKES: enum Strike; rows… }` declares the columns, the simulator's
/// strikes by key (in the order it draws their instants, after the core's
/// pauses and crashes) with their enum `Strike`, and a test that the
/// table's budget keys are the model's (each once: those of the space's
/// `faults`). The strike enum is the table's own, so that a strike is
/// named once, in its row. Each row is `"id", "label", "legend", [FORM];`
/// with FORM one of
///
/// - `budget key`: the class of scenario key `key` (a field of the
///   space's `faults`, set to 1 in its column) that the simulator's core
///   strikes (a pause, a crash) or does not strike (the checker's only);
/// - `budget key => X`: the same, struck by the backend's world as
///   `Strike::X` (the simulator draws its instants in row order);
/// - `budget key … , also |s| …`: the same, with more settings in its
///   column;
/// - `setting |s| …`: a column of settings only (no fault, a variant of
///   another class): no key, no strike.
///
macro_rules! fault_table {
    (
        $(#[$cmeta:meta])* pub static $columns:ident: [FaultClass<$space:ty>];
        strikes $strikes:ident: enum $strike:ident;
        $( $id:literal, $label:literal, $about:literal, $form:tt; )*
    ) => {
        $(#[$cmeta])*
        pub static $columns: &[$crate::matrix::command::FaultClass<$space>] = &[
            $(
                $crate::matrix::command::FaultClass {
                    fault: $crate::matrix::axes::Fault {
                        id: $id,
                        label: $label,
                        about: $about,
                    },
                    apply: $crate::matrix::fault_table::fault_table!(@apply $space, $form),
                },
            )*
        ];

        $crate::matrix::fault_table::fault_table!(@strikes $strikes $strike [] $($form)*);

        #[cfg(test)]
        #[test]
        fn the_fault_table_declares_every_budget_of_the_model_once() {
            // The model's budgets are the type of the space's `faults`.
            fn budgets<B: Default>(_: fn(&$space) -> &B) -> B {
                B::default()
            }
            let model = budgets(|s| &s.faults).by_key().map(|(k, _)| k);
            let table: &[&str] = $crate::matrix::fault_table::fault_table!(@keys [] $($form)*);
            assert_eq!($crate::matrix::fault_table::same_keys(table, &model), None);
        }
    };

    (@apply $space:ty, [budget $key:ident $( => $v:ident )? $( , also |$s:tt| $more:expr )?]) => {
        |s: &mut $space| {
            s.faults.$key = 1;
            $( let $s = &mut *s; $more; )?
        }
    };
    (@apply $space:ty, [setting |$s:tt| $settings:expr]) => {
        |s: &mut $space| {
            let $s = &mut *s;
            $settings;
        }
    };

    (@strikes $strikes:ident $strike:ident [$(($key:ident, $v:ident))*]) => {
        /// A fault the simulated world strikes besides the core's pause
        /// and crash (the backend's `sim`), one a row of its fault table.
        #[derive(Clone, Copy, Debug)]
        pub enum $strike {
            $($v,)*
        }

        /// The simulator's strikes by scenario key, in the order it draws
        /// their instants (after the core's pauses and crashes).
        pub static $strikes: &[(&str, $strike)] = &[$((stringify!($key), $strike::$v),)*];
    };
    (@strikes $strikes:ident $strike:ident [$($acc:tt)*] [budget $key:ident => $v:ident $(, $($also:tt)*)?] $($rest:tt)*) => {
        $crate::matrix::fault_table::fault_table!(@strikes $strikes $strike [$($acc)* ($key, $v)] $($rest)*);
    };
    (@strikes $strikes:ident $strike:ident [$($acc:tt)*] $other:tt $($rest:tt)*) => {
        $crate::matrix::fault_table::fault_table!(@strikes $strikes $strike [$($acc)*] $($rest)*);
    };

    (@keys [$($acc:tt)*]) => { &[$($acc)*] };
    (@keys [$($acc:tt)*] [budget $key:ident $($more:tt)*] $($rest:tt)*) => {
        $crate::matrix::fault_table::fault_table!(@keys [$($acc)* stringify!($key),] $($rest)*)
    };
    (@keys [$($acc:tt)*] $other:tt $($rest:tt)*) => {
        $crate::matrix::fault_table::fault_table!(@keys [$($acc)*] $($rest)*)
    };
}

pub(crate) use fault_table;

/// Whether a table's budget keys are the model's, each once: `None`, or
/// what differs.
pub fn same_keys(table: &[&str], model: &[&str]) -> Option<String> {
    let mut t = table.to_vec();
    let mut m = model.to_vec();
    t.sort_unstable();
    m.sort_unstable();
    (t != m).then(|| format!("the fault table's keys {t:?} are not the model's {m:?}"))
}

#[cfg(test)]
mod tests {
    use super::same_keys;

    #[test]
    fn keys_differ_when_one_is_missing_doubled_or_foreign() {
        let model = ["pauses", "crashes", "restarts"];
        assert_eq!(same_keys(&["restarts", "pauses", "crashes"], &model), None);
        assert!(same_keys(&["pauses", "crashes"], &model).is_some());
        assert!(same_keys(&["pauses", "crashes", "restarts", "pauses"], &model).is_some());
        assert!(same_keys(&["pauses", "crashes", "restart"], &model).is_some());
    }
}

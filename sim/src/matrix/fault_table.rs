//! A command backend's fault classes declared once, one row a class: its
//! comparison column (id, label, legend sentence), the scenario key and
//! budget field it sets, and the simulator's strike for it. The model's
//! budget struct (`fault_budget!`) holds the keys and the checker's
//! action; this table holds the rest, and a test per backend
//! ([`same_keys`]) holds the two to the same keys.

/// `fault_table! { pub static COLUMNS: [FaultClass<Space>]; strikes
/// STRIKES: Strike; keys KEYS: Budgets; rows… }` declares the columns,
/// the simulator's strikes by key (in the order it draws their instants,
/// after the core's pauses and crashes), the budget keys, and a test that
/// they are the model's `Budgets` (each once). Each row is
/// `"id", "label", "legend", [FORM];` with FORM one of
///
/// - `budget key`: the class of scenario key `key` (a field of the
///   space's `faults`, set to 1 in its column) that the simulator's core
///   strikes (a pause, a crash) or does not strike (the checker's only);
/// - `budget key => Strike::X`: the same, struck by the backend's world
///   as `Strike::X` (the simulator draws its instants in row order);
/// - `budget key … , also |s| …`: the same, with more settings in its
///   column;
/// - `setting |s| …`: a column of settings only (no fault, a variant of
///   another class): no key, no strike.
///
macro_rules! fault_table {
    (
        $(#[$cmeta:meta])* pub static $columns:ident: [FaultClass<$space:ty>];
        strikes $strikes:ident: $strike:ty; keys $keys:ident: $budgets:ty;
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

        /// The simulator's strikes by scenario key, in the order it draws
        /// their instants (after the core's pauses and crashes).
        pub static $strikes: &[(&str, $strike)] =
            $crate::matrix::fault_table::fault_table!(@strikes [] $($form)*);

        /// Every budget key the table declares.
        pub static $keys: &[&str] = $crate::matrix::fault_table::fault_table!(@keys [] $($form)*);

        #[cfg(test)]
        #[test]
        fn the_fault_table_declares_every_budget_of_the_model_once() {
            let model = <$budgets>::default().by_key().map(|(k, _)| k);
            assert_eq!($crate::matrix::fault_table::same_keys($keys, &model), None);
        }
    };

    (@apply $space:ty, [budget $key:ident $( => $f:expr )? $( , also |$s:tt| $more:expr )?]) => {
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

    (@strikes [$($acc:tt)*]) => { &[$($acc)*] };
    (@strikes [$($acc:tt)*] [budget $key:ident => $f:expr $(, $($also:tt)*)?] $($rest:tt)*) => {
        $crate::matrix::fault_table::fault_table!(@strikes [$($acc)* (stringify!($key), $f),] $($rest)*)
    };
    (@strikes [$($acc:tt)*] $other:tt $($rest:tt)*) => {
        $crate::matrix::fault_table::fault_table!(@strikes [$($acc)*] $($rest)*)
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

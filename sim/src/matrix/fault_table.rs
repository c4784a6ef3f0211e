//! A command backend's fault classes declared once, one row a class: its
//! comparison column (id, label, legend sentence), the scenario key and
//! budget field it sets, and the simulator's strike for it. The model's
//! budget struct (`fault_budget!`) holds the keys and the checker's
//! action; this table holds the rest, and a test per backend
//! ([`same_keys`]) holds the two to the same keys.

/// `fault_table! { pub static COLUMNS: [FaultClass<Space>]; pub static
/// STRIKES: [(&str, Strike)]; pub static KEYS: [&str]; rows… }`, each row
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
/// `FaultClass` and `Fault` (`crate::matrix::command::FaultClass`,
/// `crate::matrix::axes::Fault`) are named as the invoking file imports
/// them.
macro_rules! fault_table {
    (
        $(#[$cmeta:meta])* pub static $columns:ident: [FaultClass<$space:ty>];
        $(#[$smeta:meta])* pub static $strikes:ident: [(&str, $strike:ty)];
        $(#[$kmeta:meta])* pub static $keys:ident: [&str];
        $( $id:literal, $label:literal, $about:literal, $form:tt; )*
    ) => {
        $(#[$cmeta])*
        pub static $columns: &[FaultClass<$space>] = &[
            $(
                FaultClass {
                    fault: Fault {
                        id: $id,
                        label: $label,
                        about: $about,
                    },
                    apply: $crate::matrix::fault_table::fault_table!(@apply $space, $form),
                },
            )*
        ];

        $(#[$smeta])*
        pub static $strikes: &[(&str, $strike)] =
            $crate::matrix::fault_table::fault_table!(@strikes [] $($form)*);

        $(#[$kmeta])*
        pub static $keys: &[&str] = $crate::matrix::fault_table::fault_table!(@keys [] $($form)*);
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

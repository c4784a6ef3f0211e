//! A command backend's actions: the six every one has (a client's step
//! and its think, the server's serving of its request, a tick, a client's
//! pause and its crash) and the backend's own, in one enum the backend
//! declares with [`command_actions!`]. The engine takes the shared ones
//! ([`Shared`]); the backend takes its own from an enum of them alone, so
//! that its match on them is whole.

/// A command backend's action as the engine reads it (written by
/// [`command_actions!`]).
pub trait CommandAction: Copy {
    /// The backend's own actions, alone.
    type Own: Copy;
    /// One every backend has, or the backend's own.
    fn split(self) -> Result<Shared, Self::Own>;
    /// The backend's action for a shared one.
    fn shared(a: Shared) -> Self;
    /// A fault: a pause, a crash, or one of the backend's own so marked.
    fn is_fault(self) -> bool;
    /// The action with its client (if it has one) renamed by `f`.
    fn relabel(self, f: &dyn Fn(u8) -> u8) -> Self;
}

/// `command_actions! { /// doc  pub enum Action;  serve: "… c{} …";
/// /// doc  pub enum Own { /// doc  Name(c): fault => "… c{} …", … } }`:
/// the backend's action enum (the six shared actions, then its own, each
/// with its doc), the enum of its own alone, and [`CommandAction`] and
/// `Display` for the first. An own action is a `fault` or an `event`, with
/// a client (`Name(c)`) or without; its words are the trace's (`c{}`: the
/// client, counted from 1), as are `serve`'s for the server's serving.
macro_rules! command_actions {
    (@client $c:ident) => { u8 };
    (@fault fault) => { true };
    (@fault event) => { false };
    // An enum of the six shared actions, then `$rest`.
    (@enum $(#[$meta:meta])* $name:ident { $($rest:tt)* }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            /// Client `c` takes its next step: reads the reply that came,
            /// if any, and runs to its next request (or starts a tick-long
            /// wait).
            Step(u8),
            /// Client `c`, about to begin a round, thinks one tick first.
            Think(u8),
            /// The server handles client `c`'s request.
            Serve(u8),
            /// One tick of time passes for everyone.
            Tick,
            /// Fault: client `c`'s process stops for the configured ticks.
            Pause(u8),
            /// Fault: client `c`'s process crashes.
            Crash(u8),
            $($rest)*
        }
    };
    (
        $(#[$meta:meta])*
        pub enum $action:ident;
        serve: $serve:literal;
        $(#[$own_meta:meta])*
        pub enum $own:ident {
            $(
                $(#[$doc:meta])*
                $name:ident $(($c:ident))? : $kind:ident => $words:literal,
            )*
        }
    ) => {
        $crate::engine::command::action::command_actions!(@enum
            $(#[$meta])*
            $action {
                $(
                    $(#[$doc])*
                    $name $(($crate::engine::command::action::command_actions!(@client $c)))?,
                )*
            }
        );

        $(#[$own_meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $own {
            $(
                $(#[$doc])*
                $name $(($crate::engine::command::action::command_actions!(@client $c)))?,
            )*
        }

        impl $crate::engine::command::CommandAction for $action {
            type Own = $own;

            fn split(self) -> Result<$crate::engine::command::Shared, $own> {
                use $crate::engine::command::Shared;
                match self {
                    Self::Step(c) => Ok(Shared::Step(c)),
                    Self::Think(c) => Ok(Shared::Think(c)),
                    Self::Serve(c) => Ok(Shared::Serve(c)),
                    Self::Tick => Ok(Shared::Tick),
                    Self::Pause(c) => Ok(Shared::Pause(c)),
                    Self::Crash(c) => Ok(Shared::Crash(c)),
                    $( Self::$name $(($c))? => Err($own::$name $(($c))?), )*
                }
            }

            fn shared(a: $crate::engine::command::Shared) -> Self {
                use $crate::engine::command::Shared;
                match a {
                    Shared::Step(c) => Self::Step(c),
                    Shared::Think(c) => Self::Think(c),
                    Shared::Serve(c) => Self::Serve(c),
                    Shared::Tick => Self::Tick,
                    Shared::Pause(c) => Self::Pause(c),
                    Shared::Crash(c) => Self::Crash(c),
                }
            }

            fn is_fault(self) -> bool {
                match self {
                    Self::Pause(_) | Self::Crash(_) => true,
                    Self::Step(_) | Self::Think(_) | Self::Serve(_) | Self::Tick => false,
                    $(
                        Self::$name { .. } => {
                            $crate::engine::command::action::command_actions!(@fault $kind)
                        }
                    )*
                }
            }

            fn relabel(self, f: &dyn Fn(u8) -> u8) -> Self {
                match self {
                    Self::Step(c) => Self::Step(f(c)),
                    Self::Think(c) => Self::Think(f(c)),
                    Self::Serve(c) => Self::Serve(f(c)),
                    Self::Tick => Self::Tick,
                    Self::Pause(c) => Self::Pause(f(c)),
                    Self::Crash(c) => Self::Crash(f(c)),
                    $( Self::$name $(($c))? => Self::$name $((f($c)))?, )*
                }
            }
        }

        impl std::fmt::Display for $action {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match *self {
                    Self::Step(c) => write!(f, "c{} steps", c + 1),
                    Self::Think(c) => write!(f, "c{} thinks a tick", c + 1),
                    Self::Serve(c) => write!(f, $serve, c + 1),
                    Self::Tick => write!(f, "a tick passes"),
                    Self::Pause(c) => write!(f, "c{} pauses (fault)", c + 1),
                    Self::Crash(c) => write!(f, "c{} crashes (fault)", c + 1),
                    $( Self::$name $(($c))? => write!(f, $words $(, $c + 1)?), )*
                }
            }
        }
    };
}

pub(crate) use command_actions;

command_actions!(@enum
    /// The actions every command backend has, as the engine takes them.
    Shared {}
);

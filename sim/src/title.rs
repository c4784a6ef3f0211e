//! A report's first line, the same for every command and backend: which
//! scenario, which recipe, how many clients, and what ran them.

pub fn title(
    scenario: impl std::fmt::Display,
    recipe: impl std::fmt::Display,
    clients: impl std::fmt::Display,
    how: &str,
) -> String {
    format!("{scenario}  —  {recipe} with {clients} clients{how}\n")
}

//! [`InvalidField`]: the error every configuration table reports for a value out of range. A
//! leaf module: each layer's settings report it, and the run configuration that gathers them
//! passes it on.

/// A field whose value is out of range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("field `{field}`: {message}")]
pub struct InvalidField {
    /// The field's path, `table.key`.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

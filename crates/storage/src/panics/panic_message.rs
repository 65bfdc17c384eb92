//! A panic's message, for the cause of a fail-stop: on the sync thread
//! (`commit/group_commit.rs`) and in the binding's containment.

use std::any::Any;

/// `panic!` makes a payload a `&str` or a `String`.
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic without a message".to_string()
    }
}

//! [`TaskCreated`]: what the server tells the hook of
//! [`McpServerBuilder::on_task_created`](crate::rmcp::McpServerBuilder::on_task_created)
//! about each task it creates, so that code outside the handler (a worker)
//! can attach to the right one.

use super::inbox::TaskInbox;
use std::fmt;

/// A task the server has just created (durably: every instance finds it),
/// before its first run starts.
pub struct TaskCreated {
    pub(crate) tool: String,
    pub(crate) task_id: String,
    pub(crate) principal: Option<String>,
    pub(crate) inbox: TaskInbox,
}

impl TaskCreated {
    /// The tool whose call became the task.
    #[must_use]
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The task's id, as the client sees it (and as
    /// [`Round::task_id`](crate::Round::task_id) gives it inside the task).
    #[must_use]
    pub fn task_id(&self) -> &str {
        &self.task_id
    }

    /// The principal that created it (`None`: anonymous): the only one who
    /// can see it, or answer its questions.
    #[must_use]
    pub fn principal(&self) -> Option<&str> {
        self.principal.as_deref()
    }

    /// The server's inbox, to ask this task's user from outside the handler
    /// ([`TaskInbox::ask`] with [`task_id`](Self::task_id)).
    #[must_use]
    pub fn inbox(&self) -> &TaskInbox {
        &self.inbox
    }
}

impl fmt::Debug for TaskCreated {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskCreated")
            .field("tool", &self.tool)
            .field("task_id", &self.task_id)
            .field("principal", &self.principal)
            .finish_non_exhaustive()
    }
}

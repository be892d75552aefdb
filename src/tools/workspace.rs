//! The workspace adapter contract (version 1): `info` validation and output capping.
//!
//! A host that passes a `workspace` gives the model one `terminal` tool. The host is the sandbox;
//! we validate its description once, at creation, and bound everything that crosses.

use serde::Deserialize;

use crate::Code;

/// Largest command we hand to the host, in UTF-8 bytes.
pub const MAX_COMMAND_BYTES: usize = 64 * 1024;
/// Combined stdout + stderr bytes kept from one command.
pub const MAX_OUTPUT_BYTES: usize = 64 * 1024;
/// How long one command may run.
pub const COMMAND_TIMEOUT_MS: u32 = 30_000;
/// Largest serialized `info` we accept.
pub const MAX_INFO_JSON_BYTES: usize = 4 * 1024;

/// When the host wants the user asked before each command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permission {
    /// The host is the sandbox: run commands without asking.
    AllowSandboxed,
    /// Ask the user (terminal approval panel, or the agent's `onPermission`) before each command.
    Prompt,
}

impl Permission {
    pub fn as_str(self) -> &'static str {
        match self {
            Permission::AllowSandboxed => "allow-sandboxed",
            Permission::Prompt => "prompt",
        }
    }
}

/// The validated workspace description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceInfo {
    pub root: String,
    pub cwd: String,
    pub home: String,
    pub permission: Permission,
}

/// The `info` object and `permission` as the host wrote them (camelCase, as in the JS contract).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RawWorkspace {
    pub info: RawInfo,
    pub permission: serde_json::Value,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RawInfo {
    pub version: serde_json::Value,
    pub root: serde_json::Value,
    pub cwd: serde_json::Value,
    pub home: serde_json::Value,
    pub git_available: serde_json::Value,
    pub ephemeral: serde_json::Value,
}

/// Why a workspace adapter was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WorkspaceError {
    #[error("workspace.info.version must be 1")]
    Version,
    #[error("workspace.info.{field} must be a string")]
    NotAString { field: &'static str },
    #[error("workspace.info.{field} must be a normalized absolute path ({why}): {path:?}")]
    BadPath {
        field: &'static str,
        why: &'static str,
        path: String,
    },
    #[error("workspace.info.cwd must equal workspace.info.root in version 1")]
    CwdNotRoot,
    #[error("workspace.info.gitAvailable must be false in version 1")]
    GitAvailable,
    #[error("workspace.info.ephemeral must be true in version 1")]
    NotEphemeral,
    #[error("workspace.permission must be \"allow-sandboxed\" or \"prompt\"")]
    Permission,
    #[error("workspace.info is larger than {MAX_INFO_JSON_BYTES} bytes")]
    TooLarge,
}

impl WorkspaceError {
    pub fn code(&self) -> Code {
        match self {
            WorkspaceError::Version
            | WorkspaceError::NotAString { .. }
            | WorkspaceError::BadPath { .. }
            | WorkspaceError::CwdNotRoot
            | WorkspaceError::GitAvailable
            | WorkspaceError::NotEphemeral
            | WorkspaceError::Permission
            | WorkspaceError::TooLarge => Code::WorkspaceInvalid,
        }
    }
}

impl RawWorkspace {
    /// Checks the version-1 contract.
    ///
    /// # Errors
    /// The first rule the description breaks.
    pub fn validate(&self) -> Result<WorkspaceInfo, WorkspaceError> {
        let info = &self.info;
        if info.version.as_u64() != Some(1) {
            return Err(WorkspaceError::Version);
        }
        let root = path_field("root", &info.root)?;
        let cwd = path_field("cwd", &info.cwd)?;
        let home = path_field("home", &info.home)?;
        if info.git_available.as_bool() != Some(false) {
            return Err(WorkspaceError::GitAvailable);
        }
        if info.ephemeral.as_bool() != Some(true) {
            return Err(WorkspaceError::NotEphemeral);
        }
        if cwd != root {
            return Err(WorkspaceError::CwdNotRoot);
        }
        let permission = match self.permission.as_str() {
            Some("allow-sandboxed") => Permission::AllowSandboxed,
            Some("prompt") => Permission::Prompt,
            _ => return Err(WorkspaceError::Permission),
        };
        if root.len() + cwd.len() + home.len() + 128 > MAX_INFO_JSON_BYTES {
            return Err(WorkspaceError::TooLarge);
        }
        Ok(WorkspaceInfo {
            root,
            cwd,
            home,
            permission,
        })
    }
}

fn path_field(field: &'static str, value: &serde_json::Value) -> Result<String, WorkspaceError> {
    let path = value.as_str().ok_or(WorkspaceError::NotAString { field })?;
    let bad = |why| WorkspaceError::BadPath {
        field,
        why,
        path: path.to_owned(),
    };
    if !path.starts_with('/') {
        return Err(bad("not absolute"));
    }
    if path.contains('\0') {
        return Err(bad("contains NUL"));
    }
    if path != "/" {
        if path.ends_with('/') {
            return Err(bad("trailing slash"));
        }
        for segment in path.split('/').skip(1) {
            match segment {
                "" => return Err(bad("empty segment")),
                "." | ".." => return Err(bad("dot segment")),
                _ => {}
            }
        }
    }
    Ok(path.to_owned())
}

/// Output of one command, capped to [`MAX_OUTPUT_BYTES`] combined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CappedOutput {
    pub stdout: String,
    pub stderr: String,
    /// Bytes the command really wrote to each stream.
    pub stdout_bytes: usize,
    pub stderr_bytes: usize,
    pub truncated: bool,
}

/// Caps `stdout` + `stderr` to `cap` bytes together: each stream gets half (stdout the rounding-up
/// half), a stream that needs less gives the rest to the other, and each cut lands on a UTF-8
/// character boundary.
pub fn cap_output(stdout: &str, stderr: &str, cap: usize) -> CappedOutput {
    let (out_len, err_len) = (stdout.len(), stderr.len());
    if out_len.saturating_add(err_len) <= cap {
        return CappedOutput {
            stdout: stdout.to_owned(),
            stderr: stderr.to_owned(),
            stdout_bytes: out_len,
            stderr_bytes: err_len,
            truncated: false,
        };
    }
    let half_up = cap - cap / 2;
    let half_down = cap / 2;
    let (out_budget, err_budget) = if out_len <= half_up {
        (out_len, cap - out_len)
    } else if err_len <= half_down {
        (cap - err_len, err_len)
    } else {
        (half_up, half_down)
    };
    CappedOutput {
        stdout: utf8_prefix(stdout, out_budget).to_owned(),
        stderr: utf8_prefix(stderr, err_budget).to_owned(),
        stdout_bytes: out_len,
        stderr_bytes: err_len,
        truncated: true,
    }
}

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
pub fn utf8_prefix(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while end > 0 && !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(root: &str, cwd: &str, permission: &str) -> RawWorkspace {
        serde_json::from_value(serde_json::json!({
            "info": {"version": 1, "root": root, "cwd": cwd, "home": "/home/visitor",
                     "gitAvailable": false, "ephemeral": true},
            "permission": permission,
        }))
        .unwrap()
    }

    #[test]
    fn accepts_the_contract() {
        let info = raw("/workspace", "/workspace", "prompt")
            .validate()
            .unwrap();
        assert_eq!(info.root, "/workspace");
        assert_eq!(info.permission, Permission::Prompt);
        assert!(raw("/", "/", "allow-sandboxed").validate().is_ok());
    }

    #[test]
    fn rejects_each_rule() {
        let cases = [
            (raw("workspace", "workspace", "prompt"), "not absolute"),
            (raw("/w/", "/w/", "prompt"), "trailing slash"),
            (raw("/w//x", "/w//x", "prompt"), "empty segment"),
            (raw("/w/../x", "/w/../x", "prompt"), "dot segment"),
            (raw("/w\0", "/w\0", "prompt"), "contains NUL"),
            (raw("/w", "/w/sub", "prompt"), "must equal"),
            (raw("/w", "/w", "yolo"), "allow-sandboxed"),
        ];
        for (ws, needle) in cases {
            let err = ws.validate().unwrap_err().to_string();
            assert!(err.contains(needle), "{err} should mention {needle}");
        }
        let mut ws = raw("/w", "/w", "prompt");
        ws.info.git_available = serde_json::json!(true);
        assert_eq!(ws.validate(), Err(WorkspaceError::GitAvailable));
        let mut ws = raw("/w", "/w", "prompt");
        ws.info.version = serde_json::json!(2);
        assert_eq!(ws.validate(), Err(WorkspaceError::Version));
    }

    #[test]
    fn caps_on_char_boundaries() {
        let out = "é".repeat(10); // 20 bytes
        let capped = cap_output(&out, "", 7);
        assert!(capped.truncated);
        assert_eq!(capped.stdout, "ééé");
        assert_eq!(capped.stdout_bytes, 20);

        let capped = cap_output(&"a".repeat(10), &"b".repeat(10), 8);
        assert_eq!((capped.stdout.len(), capped.stderr.len()), (4, 4));
        let capped = cap_output(&"a".repeat(10), "bb", 8);
        assert_eq!((capped.stdout.len(), capped.stderr.len()), (6, 2));
        let capped = cap_output("a", &"b".repeat(10), 9);
        assert_eq!((capped.stdout.len(), capped.stderr.len()), (1, 8));
        let capped = cap_output("abc", "de", 9);
        assert!(!capped.truncated);
    }
}

//! Running `toolforge` so that file permissions apply: as the user `nobody` (uid 65534) when
//! the tests run as root (root writes anywhere, whatever the permissions), as the current user
//! otherwise. What `cli_db.rs` and `codegen_folder.rs` check about folders a user cannot write.

use std::path::Path;
use std::process::{Command, Output};

/// Runs `toolforge args` as described above, and waits for it.
pub fn toolforge(args: &[&str]) -> Output {
    use std::os::unix::process::CommandExt;
    if !is_root() {
        return Command::new(env!("CARGO_BIN_EXE_toolforge"))
            .args(args)
            .output()
            .expect("run toolforge");
    }
    // The build folder may sit where `nobody` cannot go (a checkout under /root): run a copy of
    // the binary from a folder everyone can read.
    let bin_dir = tempfile::tempdir().unwrap();
    chmod(bin_dir.path(), 0o755);
    let binary = bin_dir.path().join("toolforge");
    std::fs::copy(env!("CARGO_BIN_EXE_toolforge"), &binary).unwrap();
    chmod(&binary, 0o755);
    let mut command = Command::new(&binary);
    command.args(args).uid(65_534).gid(65_534);
    command.output().expect("run toolforge")
}

/// A shell command run as the user [`toolforge`] runs as (to probe what that user may do).
pub fn shell(script: &str) -> Output {
    use std::os::unix::process::CommandExt;
    let mut command = Command::new("sh");
    command.args(["-c", script]);
    if is_root() {
        command.uid(65_534).gid(65_534);
    }
    command.output().expect("run sh")
}

/// Whether the tests run as root.
pub fn is_root() -> bool {
    std::fs::metadata("/proc/self")
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
        .unwrap_or(false)
}

/// Sets `path`'s mode.
pub fn chmod(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

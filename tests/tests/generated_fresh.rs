//! The client folders checked in under `tests/generated/` are exactly what the generator writes
//! today. A stale folder fails with a diff; `TOOLFORGE_BLESS=1 cargo test -p toolforge-tests
//! --test integration generated_fresh` rewrites the generated files (never `custom_tools.rs`).

use std::path::Path;

use toolforge_generator::__private::output::{Drift, check_folder, write_folder};
use toolforge_tests::{GENERATED_CLIENTS, generate_client};

#[test]
fn checked_in_clients_match_the_generator_byte_for_byte() {
    let bless = std::env::var_os("TOOLFORGE_BLESS").is_some();
    let mut stale = Vec::new();
    for (name, config) in GENERATED_CLIENTS {
        let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("generated")
            .join(name);
        let files = generate_client(config);
        if bless {
            write_folder(&folder, &files, false).expect("write the client folder");
        }
        for drift in check_folder(&folder, &files) {
            match drift {
                Drift::Missing(path) => stale.push(format!("{name}/{}: missing", path.display())),
                Drift::Changed { path, diff } => {
                    stale.push(format!("{name}/{}:\n{diff}", path.display()))
                }
                other => stale.push(format!("{name}: {other:?}")),
            }
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated clients (rerun with TOOLFORGE_BLESS=1):\n{}",
        stale.join("\n")
    );
}

//! The crates' boundaries: the core holds the whole pipeline and builds without an HTTP
//! stack or an async runtime, so a tool can embed it (or run it in a batch job) without
//! pulling either in.

use std::collections::BTreeSet;
use std::process::Command;

/// The crates in a package's normal and build dependency tree (dev-dependencies excluded).
fn dependency_tree(package: &str) -> BTreeSet<String> {
    let out = Command::new(env!("CARGO"))
        .args(["tree", "--prefix", "none", "--edges", "normal,build"])
        .args(["--format", "{p}", "--package", package])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree -p {package} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

#[test]
fn the_core_has_no_http_stack_and_no_async_runtime() {
    let core = dependency_tree("outfall-core");
    assert!(core.contains("geo") && core.contains("rstar"), "{core:?}");
    for banned in [
        "axum",
        "tokio",
        "hyper",
        "tower",
        "tower-http",
        "postgres",
        "utoipa",
    ] {
        assert!(
            !core.contains(banned),
            "outfall-core depends on {banned}; move the code that needs it to outfall-server"
        );
    }
}

#[test]
fn the_server_and_the_postgis_store_are_where_the_runtime_is() {
    // The check above means something only if `cargo tree` reports these crates where
    // they are used.
    assert!(dependency_tree("outfall-server").contains("axum"));
    assert!(dependency_tree("outfall-postgis").contains("tokio"));
}

//! Builds the runtime that `pcc build` links into native executables: the `pcc-runtime` crate,
//! `pcc-stdlib` as a static library (`libpcc_runtime.a`), which `src/link.rs` embeds.
//!
//! Cargo cannot hand a crate the static library of one of its dependencies: it builds
//! dependencies as rlibs, and a staticlib artifact lands, under a hashed name, only in its
//! `deps/` folder (and is copied out only when asked for on the command line); artifact
//! dependencies are unstable. So this script runs a nested `cargo build -p pcc-runtime`, in
//! the same workspace and profile, for the same target, into a target directory of its own
//! under `OUT_DIR` (the outer build holds the lock of the main one). Every dependency it needs
//! is already downloaded for `pcc-stdlib` itself, hence `--offline`. The archive is embedded
//! into `pcc`, so a `pcc` binary is self-contained: `cargo run -- build`, `cargo test` and a
//! copied binary all work from a clean checkout.

use std::env;
use std::path::PathBuf;
use std::process::Command;

fn main() {
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let workspace = manifest_dir
        .parent()
        .expect("compiler/ is in the workspace");
    for input in ["runtime", "stdlib", "profiler", "Cargo.lock", "Cargo.toml"] {
        println!("cargo:rerun-if-changed={}", workspace.join(input).display());
    }
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("set by cargo"));
    let target_dir = out_dir.join("runtime-target");
    let target = env::var("TARGET").expect("set by cargo");
    // `debug` or `release`: the profile `pcc` itself is built with.
    let profile = env::var("PROFILE").expect("set by cargo");
    let mut cargo = Command::new(env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cargo
        .current_dir(workspace)
        .args(["build", "--package", "pcc-runtime", "--offline", "--locked"])
        .args(["--target", &target])
        .arg("--target-dir")
        .arg(&target_dir)
        // The runtime's debug information would double the archive and every link's work.
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
        // `cargo clippy` lints through this wrapper; the nested build only builds.
        .env_remove("RUSTC_WORKSPACE_WRAPPER");
    if profile == "release" {
        cargo.arg("--release");
    }
    let output = cargo
        .output()
        .unwrap_or_else(|error| panic!("cannot run cargo to build the runtime: {error}"));
    if !output.status.success() {
        panic!(
            "building the runtime library (pcc-runtime) failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let archive = target_dir
        .join(&target)
        .join(&profile)
        .join("libpcc_runtime.a");
    assert!(
        archive.is_file(),
        "no runtime library at {}",
        archive.display()
    );
    println!("cargo:rustc-env=PCC_RUNTIME_ARCHIVE={}", archive.display());
    // A digest of the archive names the copy `pcc build` keeps in the user's cache (link.rs).
    let bytes = std::fs::read(&archive)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", archive.display()));
    let mut hasher = std::hash::DefaultHasher::new();
    std::hash::Hasher::write(&mut hasher, &bytes);
    println!(
        "cargo:rustc-env=PCC_RUNTIME_DIGEST={:016x}",
        std::hash::Hasher::finish(&hasher)
    );
}

//! Build settings.
//!
//! The variant files: every `variants/*.toml` is embedded in the program, listed in
//! `$OUT_DIR/embedded_variants.rs` (a new file there needs no change to the code).
//!
//! Link settings for LibTorch. torch-sys reports the library folder through its
//! `links = "tch"` metadata as DEP_TCH_LIBTORCH_LIB; this script
//! - embeds that folder as an rpath in every binary, test and bench of the crate, so they run
//!   without LD_LIBRARY_PATH from any working directory;
//! - links libtorch_cuda with --no-as-needed when the wheel ships it: no symbol of it is used
//!   directly, and without this the linker drops it and CUDA is never seen at run time.

use std::path::Path;

fn main() {
    embed_variant_files();
    println!("cargo:rerun-if-env-changed=DEP_TCH_LIBTORCH_LIB");
    let Ok(lib) = std::env::var("DEP_TCH_LIBTORCH_LIB") else {
        return;
    };
    println!("cargo:rustc-link-arg=-Wl,-rpath,{lib}");
    if Path::new(&lib).join("libtorch_cuda.so").exists() {
        println!("cargo:rustc-link-arg=-Wl,--no-as-needed");
        println!("cargo:rustc-link-arg=-L{lib}");
        println!("cargo:rustc-link-arg=-ltorch_cuda");
        println!("cargo:rustc-link-arg=-Wl,--as-needed");
    }
}

/// Writes `EMBEDDED_VARIANTS: &[(&str, &str)]`, (file name, text) of every `variants/*.toml`
/// in name order.
fn embed_variant_files() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("variants");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the variants/ folder")
        .map(|entry| entry.expect("a variants/ entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    let mut code =
        String::from("/// (file name, text) of every embedded variant file.\npub(crate) const EMBEDDED_VARIANTS: &[(&str, &str)] = &[\n");
    for path in files {
        println!("cargo:rerun-if-changed={}", path.display());
        let name = path.file_name().expect("a file name").to_string_lossy().into_owned();
        code += &format!("    ({name:?}, include_str!({:?})),\n", path.display().to_string());
    }
    code += "];\n";
    let out = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("embedded_variants.rs");
    std::fs::write(out, code).expect("writing embedded_variants.rs");
}

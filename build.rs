//! Link settings for LibTorch. torch-sys reports the library folder through its
//! `links = "tch"` metadata as DEP_TCH_LIBTORCH_LIB; this script
//! - embeds that folder as an rpath in every binary, test and bench of the crate, so they run
//!   without LD_LIBRARY_PATH from any working directory;
//! - links libtorch_cuda with --no-as-needed when the wheel ships it: no symbol of it is used
//!   directly, and without this the linker drops it and CUDA is never seen at run time.

use std::path::Path;

fn main() {
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

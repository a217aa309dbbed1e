//! PNG line charts: valid files of the asked size, with or without a font, written atomically.

mod common;

use std::path::{Path, PathBuf};

use common::Scratch;
use shogi_zero::plot::{LineChart, PlotError, DEFAULT_FONT};

/// Width and height from a PNG's IHDR chunk, after checking the signature.
fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{} is not a PNG", path.display());
    assert_eq!(&bytes[12..16], b"IHDR");
    let number = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (number(16), number(20))
}

/// The names in a folder.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

fn chart() -> LineChart {
    LineChart::new("Elo over training", "training step", "Elo")
        .series("vs random", vec![(0.0, -50.0), (1000.0, 120.0), (2000.0, 310.5)])
        .series("chained", vec![(0.0, 0.0), (1000.0, 90.0), (2000.0, f64::INFINITY), (3000.0, 280.0)])
}

#[test]
fn a_chart_is_a_png_of_the_asked_size() {
    let scratch = Scratch::new("plot-size");
    let path = scratch.0.join("elo.png");
    let text = chart().size(640, 400).write_png(&path).unwrap();
    assert_eq!(text, Path::new(DEFAULT_FONT).is_file(), "text is drawn exactly when the font is there");
    assert_eq!(png_size(&path), (640, 400));
    assert_eq!(names(&scratch.0), ["elo.png"]);
    // The default size.
    chart().write_png(&path).unwrap();
    assert_eq!(png_size(&path), (800, 500));
}

#[test]
fn without_a_font_the_chart_has_no_text() {
    let scratch = Scratch::new("plot-font");
    let plain = scratch.0.join("plain.png");
    assert!(!chart().font(None).write_png(&plain).unwrap());
    assert_eq!(png_size(&plain), (800, 500));
    // A file that is not a font counts as no font.
    let not_a_font = scratch.0.join("font.ttf");
    std::fs::write(&not_a_font, "not a font").unwrap();
    let other = scratch.0.join("other.png");
    assert!(!chart().font(Some(not_a_font)).write_png(&other).unwrap());
    assert_eq!(std::fs::read(&plain).unwrap(), std::fs::read(&other).unwrap());
}

/// Feature `chart-font`: scripts/test.sh turns it on where the default font is installed.
#[test]
#[cfg_attr(not(feature = "chart-font"), ignore = "needs the font DejaVu Sans (fonts-dejavu): feature chart-font")]
fn with_the_default_font_the_chart_has_text() {
    assert!(Path::new(DEFAULT_FONT).is_file(), "{DEFAULT_FONT} does not exist, and feature chart-font needs it");
    let scratch = Scratch::new("plot-text");
    let plain = scratch.0.join("plain.png");
    assert!(!chart().font(None).write_png(&plain).unwrap());
    let lettered = scratch.0.join("text.png");
    assert!(chart().write_png(&lettered).unwrap(), "the chart is drawn with text");
    assert_eq!(png_size(&lettered), (800, 500));
    assert_ne!(std::fs::read(&plain).unwrap(), std::fs::read(&lettered).unwrap(), "text changes the picture");
}

#[test]
fn odd_data_still_draws() {
    let scratch = Scratch::new("plot-odd");
    let cases = [
        LineChart::new("empty", "x", "y"),
        LineChart::new("one point", "x", "y").series("a", vec![(5.0, 5.0)]),
        LineChart::new("flat", "x", "y").series("a", vec![(1.0, 2.0), (3.0, 2.0)]),
        LineChart::new("no finite point", "x", "y").series("a", vec![(f64::NAN, 1.0), (2.0, f64::NEG_INFINITY)]),
        LineChart::new("many series", "x", "y")
            .series("a", vec![(0.0, 1.0)])
            .series("b", vec![])
            .series("c", vec![(-1.0, -1.0), (1.0, 1.0)]),
    ];
    for (i, chart) in cases.into_iter().enumerate() {
        let path = scratch.0.join(format!("{i}.png"));
        chart.size(200, 120).write_png(&path).unwrap();
        assert_eq!(png_size(&path), (200, 120));
    }
}

#[test]
fn writing_is_atomic() {
    let scratch = Scratch::new("plot-atomic");
    let path = scratch.0.join("chart.png");
    std::fs::write(&path, "an older file").unwrap();
    chart().write_png(&path).unwrap();
    assert_eq!(png_size(&path), (800, 500));
    assert_eq!(names(&scratch.0), ["chart.png"], "no temporary file is left");
    // A missing folder is an error, and nothing is written anywhere.
    let missing: PathBuf = scratch.0.join("missing").join("chart.png");
    assert!(matches!(chart().write_png(&missing), Err(PlotError::Io { .. })));
    assert_eq!(names(&scratch.0), ["chart.png"]);
    // A bad size is refused before anything is drawn.
    for (w, h) in [(0, 100), (100, 0), (10_000, 100)] {
        assert!(matches!(chart().size(w, h).write_png(&path), Err(PlotError::BadSize { .. })));
    }
    assert_eq!(png_size(&path), (800, 500));
}

//! PNG line charts for training metrics and arena ladders: a title, axis labels, one or more
//! named series of `(x, y)` points and a legend.
//!
//! Text needs a TrueType font, read at run time from [`DEFAULT_FONT`] (Debian's `fonts-dejavu`)
//! or a file given with [`LineChart::font`]; without one the chart is drawn without any text and
//! a warning is printed. A chart is drawn into a temporary file next to its destination and
//! renamed into place, so a reader never sees half a picture.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use plotters::prelude::*;
use plotters::style::register_font;

/// The font used when none is given.
pub const DEFAULT_FONT: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

/// Largest width or height accepted, in pixels.
pub const MAX_SIDE: u32 = 8192;

/// Why a chart could not be written.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    #[error("a chart of {width}x{height} pixels is not possible (each side from 16 to {MAX_SIDE})")]
    BadSize { width: u32, height: u32 },
    #[error("cannot draw chart {path}: {message}")]
    Draw { path: PathBuf, message: String },
    #[error("cannot write chart {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
}

/// One named line of a chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: String,
    /// Points in drawing order; non-finite ones are left out.
    pub points: Vec<(f64, f64)>,
}

/// A line chart, built up and then written with [`LineChart::write_png`].
#[derive(Clone, Debug, PartialEq)]
pub struct LineChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
    pub width: u32,
    pub height: u32,
    /// The font file; `None` draws no text.
    pub font: Option<PathBuf>,
}

impl LineChart {
    /// An empty 800x500 chart with the default font.
    pub fn new(title: impl Into<String>, x_label: impl Into<String>, y_label: impl Into<String>) -> LineChart {
        LineChart {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            series: Vec::new(),
            width: 800,
            height: 500,
            font: Some(PathBuf::from(DEFAULT_FONT)),
        }
    }

    /// Sets the size in pixels.
    pub fn size(mut self, width: u32, height: u32) -> LineChart {
        self.width = width;
        self.height = height;
        self
    }

    /// Adds a series.
    pub fn series(mut self, name: impl Into<String>, points: Vec<(f64, f64)>) -> LineChart {
        self.series.push(Series { name: name.into(), points });
        self
    }

    /// Sets the font file (`None`: no text).
    pub fn font(mut self, font: Option<PathBuf>) -> LineChart {
        self.font = font;
        self
    }

    /// Draws the chart into `path` as a PNG. Returns whether text (title, axis labels, legend)
    /// was drawn: `false` when the font could not be loaded, after a warning on standard error.
    pub fn write_png(&self, path: &Path) -> Result<bool, PlotError> {
        let side = 16..=MAX_SIDE;
        if !side.contains(&self.width) || !side.contains(&self.height) {
            return Err(PlotError::BadSize { width: self.width, height: self.height });
        }
        let family = self.font.as_deref().and_then(font_family);
        if family.is_none() {
            let font = self.font.as_ref().map_or_else(|| "none given".to_string(), |f| f.display().to_string());
            eprintln!("warning: chart {} is drawn without text: no usable font ({font})", path.display());
        }
        // The encoder picks the format from the extension, so the temporary name ends in .png.
        let temp = crate::files::temp_path(path, "tmp.png");
        let drawn = self
            .draw(&temp, family)
            .and_then(|()| std::fs::rename(&temp, path).map_err(|source| PlotError::Io { path: path.to_path_buf(), source }));
        if drawn.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        drawn.map(|()| family.is_some())
    }

    /// Draws into `file` (with text in `family` when there is one).
    fn draw(&self, file: &Path, family: Option<&'static str>) -> Result<(), PlotError> {
        let failed = |e: &dyn std::fmt::Display| PlotError::Draw { path: file.to_path_buf(), message: e.to_string() };
        if let Some(parent) = file.parent().filter(|p| !p.as_os_str().is_empty()) {
            if !parent.is_dir() {
                let source = std::io::Error::new(std::io::ErrorKind::NotFound, "no such folder");
                return Err(PlotError::Io { path: parent.to_path_buf(), source });
            }
        }
        let root = BitMapBackend::new(file, (self.width, self.height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| failed(&e))?;
        let (x_range, y_range) = ranges(&self.series);
        let mut builder = ChartBuilder::on(&root);
        builder.margin(16);
        if let Some(family) = family {
            builder.caption(&self.title, (family, 24)).x_label_area_size(44).y_label_area_size(64);
        }
        let mut chart = builder.build_cartesian_2d(x_range, y_range).map_err(|e| failed(&e))?;
        let mut mesh = chart.configure_mesh();
        match family {
            Some(family) => mesh
                .x_desc(self.x_label.as_str())
                .y_desc(self.y_label.as_str())
                .label_style((family, 14))
                .axis_desc_style((family, 16))
                .x_label_formatter(&tick_label)
                .y_label_formatter(&tick_label),
            None => mesh.x_labels(0).y_labels(0),
        };
        mesh.draw().map_err(|e| failed(&e))?;
        for (i, series) in self.series.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            let points: Vec<(f64, f64)> = series.points.iter().copied().filter(|(x, y)| x.is_finite() && y.is_finite()).collect();
            let line = chart.draw_series(LineSeries::new(points.clone(), color.stroke_width(2))).map_err(|e| failed(&e))?;
            if family.is_some() {
                line.label(series.name.as_str()).legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
            }
            chart.draw_series(points.into_iter().map(|p| Circle::new(p, 3, color.filled()))).map_err(|e| failed(&e))?;
        }
        if let (Some(family), false) = (family, self.series.is_empty()) {
            chart
                .configure_series_labels()
                .label_font((family, 14))
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()
                .map_err(|e| failed(&e))?;
        }
        root.present().map_err(|e| failed(&e))
    }
}

/// A tick label: whole numbers without decimals, others with at most three.
fn tick_label(value: &f64) -> String {
    if (value - value.round()).abs() < 1e-9 * value.abs().max(1.0) {
        format!("{value:.0}")
    } else {
        format!("{value:.3}").trim_end_matches('0').to_string()
    }
}

/// The x and y ranges covering every finite point, y padded by 5%; unit ranges when empty or flat.
fn ranges(series: &[Series]) -> (Range<f64>, Range<f64>) {
    let points = series.iter().flat_map(|s| s.points.iter()).filter(|(x, y)| x.is_finite() && y.is_finite());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    for &(x, y) in points {
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
    }
    let widen = |lo: f64, hi: f64, pad: f64| {
        if lo > hi {
            0.0..1.0
        } else if lo == hi {
            lo - 1.0..hi + 1.0
        } else {
            lo - pad * (hi - lo)..hi + pad * (hi - lo)
        }
    };
    (widen(x0, x1, 0.0), widen(y0, y1, 0.05))
}

/// Registers the font at `path` with plotters once; its family name, or `None` when the file
/// cannot be read or is not a font.
fn font_family(path: &Path) -> Option<&'static str> {
    static FONTS: Mutex<Vec<(PathBuf, Option<&'static str>)>> = Mutex::new(Vec::new());
    let mut fonts = FONTS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, family)) = fonts.iter().find(|(p, _)| p == path) {
        return *family;
    }
    let family = std::fs::read(path).ok().and_then(|bytes| {
        // plotters keeps fonts for the whole run; each distinct file is read and kept once.
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        let name: &'static str = Box::leak(format!("shogi-zero:{}", path.display()).into_boxed_str());
        register_font(name, FontStyle::Normal, bytes).ok().map(|()| name)
    });
    fonts.push((path.to_path_buf(), family));
    family
}

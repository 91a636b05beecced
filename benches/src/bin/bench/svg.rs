//! `--plot`: an SVG bar chart of the run (speed-ups, roofline fractions, capture coverage),
//! written by hand-rolled formatting: a few rectangles and labels need no plotting crate.

use std::fmt::Write as _;

const WIDTH: f64 = 900.0;
const LABEL_W: f64 = 190.0;
const BAR_H: f64 = 14.0;
const ROW_GAP: f64 = 8.0;
const COLORS: [&str; 3] = ["#4e79a7", "#f28e2b", "#59a14f"];

/// How bar lengths are scaled.
#[derive(Clone, Copy)]
pub enum Scale {
    /// Ratios on a log2 axis from 1/`max` to `max`, bars starting at 1×.
    Log2 { max: f64 },
    /// Percentages, 0 to 100.
    Percent,
}

/// One panel: a title, series names, and per row a label and one value per series.
pub struct Panel {
    /// The title.
    pub title: String,
    /// Series names (legend).
    pub series: Vec<String>,
    /// Rows: label and a value per series (`None`: no bar).
    pub rows: Vec<(String, Vec<Option<f64>>)>,
    /// The axis.
    pub scale: Scale,
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

impl Panel {
    fn height(&self) -> f64 {
        let per_row = self.series.len() as f64 * BAR_H + ROW_GAP;
        50.0 + self.rows.len() as f64 * per_row + 20.0
    }

    /// x of value `v` within the plot area `[x0, x1]`, and x of the bars' origin.
    fn x_of(&self, v: f64, x0: f64, x1: f64) -> (f64, f64) {
        match self.scale {
            Scale::Log2 { max } => {
                let m = max.log2();
                let f =
                    |v: f64| x0 + (x1 - x0) * ((v.max(1e-9).log2().clamp(-m, m) + m) / (2.0 * m));
                (f(v), f(1.0))
            }
            Scale::Percent => (x0 + (x1 - x0) * v.clamp(0.0, 100.0) / 100.0, x0),
        }
    }

    fn render(&self, s: &mut String, top: f64) {
        let (x0, x1) = (LABEL_W, WIDTH - 90.0);
        let _ = writeln!(
            s,
            r#"<text x="10" y="{}" font-size="15" font-weight="bold">{}</text>"#,
            top + 18.0,
            esc(&self.title)
        );
        for (i, name) in self.series.iter().enumerate() {
            let lx = x0 + i as f64 * 170.0;
            let _ = writeln!(
                s,
                r#"<rect x="{lx}" y="{}" width="10" height="10" fill="{}"/><text x="{}" y="{}" font-size="11">{}</text>"#,
                top + 28.0,
                COLORS[i % COLORS.len()],
                lx + 14.0,
                top + 37.0,
                esc(name)
            );
        }
        let mut y = top + 50.0;
        let plot_top = y;
        for (label, values) in &self.rows {
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{}" font-size="11" text-anchor="end">{}</text>"#,
                LABEL_W - 6.0,
                y + BAR_H * values.len() as f64 / 2.0 + 4.0,
                esc(label)
            );
            for (i, v) in values.iter().enumerate() {
                if let Some(v) = *v {
                    let (xv, origin) = self.x_of(v, x0, x1);
                    let (xa, w) = if xv >= origin {
                        (origin, xv - origin)
                    } else {
                        (xv, origin - xv)
                    };
                    let text = match self.scale {
                        Scale::Log2 { .. } => format!("{v:.2}×"),
                        Scale::Percent => format!("{v:.1}%"),
                    };
                    let _ = writeln!(
                        s,
                        r#"<rect x="{xa:.1}" y="{y:.1}" width="{:.1}" height="{}" fill="{}"/><text x="{:.1}" y="{:.1}" font-size="10">{text}</text>"#,
                        w.max(0.5),
                        BAR_H - 2.0,
                        COLORS[i % COLORS.len()],
                        xa + w.max(0.5) + 3.0,
                        y + BAR_H - 4.0
                    );
                }
                y += BAR_H;
            }
            y += ROW_GAP;
        }
        // The reference line: 1× for ratios, 0% for percentages.
        let (ref_x, _) = self.x_of(
            match self.scale {
                Scale::Log2 { .. } => 1.0,
                Scale::Percent => 0.0,
            },
            x0,
            x1,
        );
        let _ = writeln!(
            s,
            r##"<line x1="{ref_x:.1}" y1="{plot_top}" x2="{ref_x:.1}" y2="{y}" stroke="#333" stroke-width="1"/>"##
        );
    }
}

/// The whole chart, panels stacked.
pub fn chart(panels: &[Panel]) -> String {
    let height: f64 = panels.iter().map(Panel::height).sum::<f64>() + 10.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" font-family="sans-serif">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let mut top = 0.0;
    for p in panels {
        p.render(&mut s, top);
        top += p.height();
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_are_placed_on_their_axis() {
        let p = Panel {
            title: "t".into(),
            series: vec!["a".into()],
            rows: vec![],
            scale: Scale::Log2 { max: 16.0 },
        };
        let (x_one, origin) = p.x_of(1.0, 0.0, 100.0);
        assert_eq!((x_one, origin), (50.0, 50.0));
        assert_eq!(p.x_of(16.0, 0.0, 100.0).0, 100.0);
        assert_eq!(p.x_of(1.0 / 16.0, 0.0, 100.0).0, 0.0);
        let q = Panel {
            scale: Scale::Percent,
            ..p
        };
        assert_eq!(q.x_of(25.0, 0.0, 100.0), (25.0, 0.0));
    }

    #[test]
    fn chart_is_one_svg_with_a_bar_per_value() {
        let p = Panel {
            title: "speed-up <vs> eager".into(),
            series: vec!["vs eager".into(), "vs NumPy".into()],
            rows: vec![
                ("W1".into(), vec![Some(2.0), None]),
                ("W2".into(), vec![Some(0.5), Some(3.0)]),
            ],
            scale: Scale::Log2 { max: 64.0 },
        };
        let svg = chart(&[p]);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        // 2 legend swatches + 3 bars + background.
        assert_eq!(svg.matches("<rect").count(), 6, "{svg}");
        assert!(svg.contains("speed-up &lt;vs&gt; eager"));
    }
}

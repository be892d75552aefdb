//! The palette's theme and how it is detected from the terminal's replies: a colour-scheme
//! report is fenced with a device-attributes query; after its reply the exact background is
//! asked (OSC 11) behind a second fence. The background decides when it answered before the
//! fence, else the report does.

use crate::term::keys::{ColorScheme, Rgb};
use crate::term::style::Palette;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Theme {
    Dark,
    Light,
}

impl Theme {
    fn of(light: bool) -> Theme {
        if light {
            Theme::Light
        } else {
            Theme::Dark
        }
    }

    pub fn palette(self) -> Palette {
        match self {
            Theme::Dark => Palette::dark(),
            Theme::Light => Palette::light(),
        }
    }
}

/// Where the theme detection stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ThemeProbe {
    #[default]
    Idle,
    /// A scheme report arrived; waiting for the first fence reply.
    First(ColorScheme),
    /// The background was asked; waiting for the second fence reply.
    Second(ColorScheme, Option<Rgb>),
}

/// What a reply leads to: a query to send, or the theme it decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeStep {
    Send(&'static str),
    Decided(Theme),
    Nothing,
}

impl ThemeProbe {
    /// A colour-scheme report: the first fence is sent.
    pub fn on_scheme(&mut self, scheme: ColorScheme) -> ProbeStep {
        *self = ThemeProbe::First(scheme);
        ProbeStep::Send("\u{1b}[c")
    }

    /// A fence reply: the background is asked (behind a second fence), or the theme decided.
    pub fn on_fence(&mut self) -> ProbeStep {
        match *self {
            ThemeProbe::First(scheme) => {
                *self = ThemeProbe::Second(scheme, None);
                ProbeStep::Send("\u{1b}]11;?\u{1b}\\\u{1b}[c")
            }
            ThemeProbe::Second(scheme, background) => {
                *self = ThemeProbe::Idle;
                let light = background.map_or(scheme == ColorScheme::Light, |rgb| rgb.is_light());
                ProbeStep::Decided(Theme::of(light))
            }
            ThemeProbe::Idle => ProbeStep::Nothing,
        }
    }

    /// A background colour: kept until the fence when asked for, else it decides at once.
    pub fn on_background(&mut self, rgb: Rgb) -> ProbeStep {
        match *self {
            ThemeProbe::Second(scheme, _) => {
                *self = ThemeProbe::Second(scheme, Some(rgb));
                ProbeStep::Nothing
            }
            _ => ProbeStep::Decided(Theme::of(rgb.is_light())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WHITE: Rgb = Rgb {
        r: 255,
        g: 255,
        b: 255,
    };

    #[test]
    fn the_background_decides_when_it_answers_before_the_fence() {
        let mut probe = ThemeProbe::Idle;
        assert_eq!(
            probe.on_scheme(ColorScheme::Dark),
            ProbeStep::Send("\u{1b}[c")
        );
        assert_eq!(
            probe.on_fence(),
            ProbeStep::Send("\u{1b}]11;?\u{1b}\\\u{1b}[c")
        );
        assert_eq!(probe.on_background(WHITE), ProbeStep::Nothing);
        assert_eq!(probe.on_fence(), ProbeStep::Decided(Theme::Light));
        assert_eq!(probe, ThemeProbe::Idle);
        assert_eq!(probe.on_fence(), ProbeStep::Nothing);
    }

    #[test]
    fn else_the_scheme_report_decides() {
        let mut probe = ThemeProbe::Idle;
        probe.on_scheme(ColorScheme::Light);
        probe.on_fence();
        assert_eq!(probe.on_fence(), ProbeStep::Decided(Theme::Light));
        // A background report on its own decides at once.
        assert_eq!(probe.on_background(WHITE), ProbeStep::Decided(Theme::Light));
    }
}

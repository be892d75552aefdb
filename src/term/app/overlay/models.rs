//! The model catalog screen (`/models`), the model picker (`/model`) and, for a model with
//! reasoning efforts, the effort picker that follows it.

use crate::gateway::Effort;
use crate::term::app::catalog::{CatalogStatus, ModelCatalog};
use crate::term::style::{Style, StyledLine, Tone};

use super::view::{item, row, step, Outcome, ScreenKey, View};

/// The catalog, searchable; with `pick`, Enter switches to the highlighted model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelPicker {
    pub pick: bool,
    pub selected: usize,
    pub filter: String,
}

impl ModelPicker {
    /// The picker, the current model highlighted.
    pub fn new(catalog: &ModelCatalog, model: &str, pick: bool) -> Self {
        let selected = catalog.position(model).unwrap_or(0);
        ModelPicker {
            pick,
            selected,
            filter: String::new(),
        }
    }

    pub fn key(&mut self, key: ScreenKey, view: &View) -> Outcome {
        let models = view.catalog.matching(&self.filter);
        match key {
            ScreenKey::Up | ScreenKey::Down => {
                self.selected = step(self.selected, models.len(), key)
            }
            ScreenKey::Erase => {
                self.filter.pop();
                self.selected = 0;
            }
            ScreenKey::Type(c) => {
                self.filter.push(c);
                self.selected = 0;
            }
            ScreenKey::Accept => {
                return match models.get(self.selected).cloned() {
                    Some(model) if self.pick => {
                        if view.catalog.efforts(&model).is_some() {
                            Outcome::ChooseEffort { model }
                        } else {
                            Outcome::SetModel {
                                model,
                                effort: None,
                            }
                        }
                    }
                    _ => Outcome::Close,
                };
            }
            _ => {}
        }
        Outcome::Stay
    }

    pub fn rows(&self, view: &View, rows: &mut Vec<StyledLine>) -> &'static str {
        let (w, h) = (view.width, view.height);
        let dim = Style::plain().fg(Tone::Secondary);
        let title = if self.pick {
            "Choose a model"
        } else {
            "Models"
        };
        rows.push(row(title, Style::plain().bold(), w));
        rows.push(row(&format!("Search: {}", self.filter), dim, w));
        rows.push(StyledLine::new());
        let models = view.catalog.matching(&self.filter);
        if models.is_empty() {
            let text = match view.catalog.status() {
                _ if !view.catalog.is_empty() => "  No model matches.".to_owned(),
                CatalogStatus::Failed(why) => {
                    format!("  The model catalog could not be loaded ({why}). Use /model <id>.")
                }
                CatalogStatus::Loaded => {
                    "  The model catalog lists no models. Use /model <id>.".to_owned()
                }
                _ => "  Loading the model catalog…".to_owned(),
            };
            rows.push(row(&text, dim, w));
        }
        let room = h.saturating_sub(5);
        let start = self.selected.saturating_add(1).saturating_sub(room);
        for (i, m) in models.iter().enumerate().skip(start).take(room) {
            let current = if *m == view.model { " (current)" } else { "" };
            let efforts = view
                .catalog
                .efforts(m)
                .map(|e| format!(" · effort: {}", e.join(", ")))
                .unwrap_or_default();
            let (mark, style) = item(i == self.selected);
            rows.push(row(&format!("{mark}{m}{current}{efforts}"), style, w));
        }
        if self.pick {
            "↑↓ Navigate    Enter Use    Esc Close"
        } else {
            "↑↓ Navigate    Esc Close"
        }
    }
}

/// The second step of `/model` for a model with reasoning efforts: `auto` or one of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EffortPicker {
    pub model: String,
    pub options: Vec<String>,
    pub selected: usize,
}

impl EffortPicker {
    /// The efforts of `model`, the current one highlighted.
    pub fn new(model: String, efforts: &[String], current: &Effort) -> Self {
        let mut options = vec!["auto".to_owned()];
        options.extend(efforts.iter().cloned());
        let selected = options
            .iter()
            .position(|e| e == current.as_str())
            .unwrap_or(0);
        EffortPicker {
            model,
            options,
            selected,
        }
    }

    pub fn key(&mut self, key: ScreenKey) -> Outcome {
        match key {
            ScreenKey::Up | ScreenKey::Down => {
                self.selected = step(self.selected, self.options.len(), key);
            }
            ScreenKey::Accept => {
                return Outcome::SetModel {
                    model: self.model.clone(),
                    effort: self.options.get(self.selected).cloned(),
                };
            }
            _ => {}
        }
        Outcome::Stay
    }

    pub fn rows(&self, view: &View, rows: &mut Vec<StyledLine>) -> &'static str {
        let w = view.width;
        rows.push(row(
            &format!("Reasoning effort for {}", self.model),
            Style::plain().bold(),
            w,
        ));
        rows.push(StyledLine::new());
        for (i, option) in self.options.iter().enumerate() {
            let current = if option == view.effort.as_str() {
                " (current)"
            } else {
                ""
            };
            let (mark, style) = item(i == self.selected);
            rows.push(row(&format!("{mark}{option}{current}"), style, w));
        }
        "↑↓ Navigate    Enter Use    Esc Close"
    }
}

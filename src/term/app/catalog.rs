//! The model catalog as the app knows it: the model ids with their reasoning efforts, and where
//! the fetch stands (it is fetched when first needed, never at start-up).

use std::collections::HashMap;

/// Where the model catalog stands.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum CatalogStatus {
    #[default]
    NotRequested,
    Loading,
    Loaded,
    Failed(String),
}

/// The catalog's model ids and their efforts.
#[derive(Debug, Clone, Default)]
pub struct ModelCatalog {
    status: CatalogStatus,
    models: Vec<String>,
    /// Reasoning efforts per model id (models without any are left out).
    efforts: HashMap<String, Vec<String>>,
}

impl ModelCatalog {
    /// The catalog arrived: model ids with their reasoning efforts.
    pub fn set(&mut self, models: Vec<(String, Vec<String>)>) {
        self.efforts = models
            .iter()
            .filter(|(_, efforts)| !efforts.is_empty())
            .cloned()
            .collect();
        self.models = models.into_iter().map(|(id, _)| id).collect();
        self.status = CatalogStatus::Loaded;
    }

    /// The catalog could not be loaded.
    pub fn failed(&mut self, message: &str) {
        self.status = CatalogStatus::Failed(message.to_owned());
    }

    /// Marks the catalog as asked for; true the first time (the driver must fetch it).
    pub fn request(&mut self) -> bool {
        let first = self.status == CatalogStatus::NotRequested;
        if first {
            self.status = CatalogStatus::Loading;
        }
        first
    }

    pub fn status(&self) -> &CatalogStatus {
        &self.status
    }

    pub fn models(&self) -> &[String] {
        &self.models
    }

    /// The model ids containing `filter`, case-insensitively.
    pub fn matching(&self, filter: &str) -> Vec<String> {
        let filter = filter.to_lowercase();
        self.models
            .iter()
            .filter(|m| m.to_lowercase().contains(&filter))
            .cloned()
            .collect()
    }

    /// The reasoning efforts of model `id`, when it has any.
    pub fn efforts(&self, id: &str) -> Option<&[String]> {
        self.efforts.get(id).map(Vec::as_slice)
    }
}

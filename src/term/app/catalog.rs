//! The model catalog as the app knows it: the model ids with their reasoning efforts, and where
//! the fetch stands (it is fetched when first needed, never at start-up).

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
    /// The model ids in catalog order, each with its reasoning efforts (often none).
    models: Vec<(String, Vec<String>)>,
}

impl ModelCatalog {
    /// The catalog arrived: model ids with their reasoning efforts.
    pub fn set(&mut self, models: Vec<(String, Vec<String>)>) {
        self.models = models;
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

    pub fn is_empty(&self) -> bool {
        self.models.is_empty()
    }

    /// Where model `id` stands in the catalog.
    pub fn position(&self, id: &str) -> Option<usize> {
        self.models.iter().position(|(m, _)| m == id)
    }

    /// The model ids containing `filter`, ignoring ASCII case (ids are ASCII; folding ASCII
    /// only spares the Unicode case tables).
    pub fn matching(&self, filter: &str) -> Vec<String> {
        let filter = filter.to_ascii_lowercase();
        self.models
            .iter()
            .map(|(m, _)| m)
            .filter(|m| m.to_ascii_lowercase().contains(&filter))
            .cloned()
            .collect()
    }

    /// The reasoning efforts of model `id`, when it has any (for an id listed twice, as its
    /// last listing with efforts says).
    pub fn efforts(&self, id: &str) -> Option<&[String]> {
        self.models
            .iter()
            .rev()
            .find(|(m, efforts)| m == id && !efforts.is_empty())
            .map(|(_, efforts)| efforts.as_slice())
    }
}

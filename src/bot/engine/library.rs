//! `library.*` (fxbot DESIGN §12.2): items with their tags, and their bytes.

use base64::Engine as _;
use serde_json::{json, Value};

use crate::caps::{DocStore, Host};

use super::super::args::{Arg, Object};
use super::super::docs::DocError;
use super::super::error::{Entity, FxbotError};
use super::super::ids::LibraryId;
use super::super::library::{
    blob_key, item_key, tags_from_arg, Filter, FilterArg, ItemDoc, Origin, ITEM_PREFIX,
};
use super::super::store::{self, load, store_error};
use super::super::upload::{check_file, Limits, UploadArg};
use super::{not_found, Fxbot};

/// A library item's bytes (`library.read`).
pub struct ItemBytes {
    pub name: String,
    pub media_type: String,
    pub bytes: Vec<u8>,
}

impl<H: Host + Clone + 'static, D: DocStore> Fxbot<H, D> {
    /// An item as the JS surface shows it (with its `url`).
    fn item_json(&self, item: &ItemDoc) -> Value {
        let mut value = serde_json::to_value(item).unwrap_or_else(|_| json!({}));
        if let Some(object) = value.as_object_mut() {
            object.remove("schema");
            object.insert(
                "url".to_owned(),
                Value::String((self.config.library_url)(item.id.as_str())),
            );
        }
        value
    }

    async fn item(&self, id: &LibraryId) -> Result<ItemDoc, FxbotError> {
        load::<ItemDoc, D>(&self.docs, &item_key(id))
            .await?
            .map(|l| l.doc)
            .ok_or_else(|| not_found(Entity::LibraryItem, id))
    }

    /// `library.list(filter?)`: newest first.
    ///
    /// # Errors
    /// 400 for a filter that is not an object of strings.
    pub async fn library_list(&self, filter: Object<FilterArg>) -> Result<Vec<Value>, FxbotError> {
        self.check_open()?;
        let filter = Filter::from_arg(filter)?;
        let listed = store::list(&self.docs, ITEM_PREFIX).await?;
        let mut items = Vec::new();
        for doc in listed {
            if let Some(item) = load::<ItemDoc, D>(&self.docs, &doc.key).await? {
                if item.doc.matches(&filter) {
                    items.push(item.doc);
                }
            }
        }
        items.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(a.id.cmp(&b.id)));
        Ok(items.iter().map(|i| self.item_json(i)).collect())
    }

    /// `library.get(itemId)`.
    ///
    /// # Errors
    /// 400 for the id's shape, 404 for an unknown item.
    pub async fn library_get(&self, id: &LibraryId) -> Result<Value, FxbotError> {
        self.check_open()?;
        Ok(self.item_json(&self.item(id).await?))
    }

    /// `library.add(upload, {tags})`: one file, by the rules of a message's files.
    ///
    /// # Errors
    /// 400 for a file outside the rules or tags that are not strings.
    pub async fn library_add(
        &self,
        upload: Object<UploadArg>,
        tags: Arg<Vec<Arg<String>>>,
    ) -> Result<Value, FxbotError> {
        self.check_open()?;
        let file = check_file(1, upload, &Limits::DEFAULT)?;
        let tags = tags_from_arg(tags)?;
        let id = LibraryId::mint(|b| self.host.fill_random(b));
        let item = ItemDoc::new(
            id.clone(),
            &file.name,
            &file.media_type,
            &file.bytes,
            Origin::default(),
            &tags,
            &self.now(),
        );
        store::commit(&self.docs, &blob_key(&id), &file.bytes, None).await?;
        store::commit(
            &self.docs,
            &item_key(&id),
            &super::super::docs::encode(&item),
            None,
        )
        .await?;
        Ok(self.item_json(&item))
    }

    /// `library.read(itemId)`.
    ///
    /// # Errors
    /// 400/404 for the id; 500 when its bytes are missing.
    pub async fn library_read(&self, id: &LibraryId) -> Result<ItemBytes, FxbotError> {
        self.check_open()?;
        let item = self.item(id).await?;
        let key = blob_key(&item.id);
        let blob = self
            .docs
            .doc_load(&key)
            .await
            .map_err(|e| store_error(&key, e))?
            .ok_or_else(|| {
                FxbotError::Doc(DocError::Damaged {
                    key: item_key(&item.id),
                    detail: "the item's bytes are missing".to_owned(),
                })
            })?;
        Ok(ItemBytes {
            name: item.name,
            media_type: item.media_type,
            bytes: blob.bytes,
        })
    }

    /// `library.read` with the bytes in base64 (for the JS boundary).
    ///
    /// # Errors
    /// As [`Fxbot::library_read`].
    pub async fn library_read_json(&self, id: &LibraryId) -> Result<Value, FxbotError> {
        let item = self.library_read(id).await?;
        Ok(json!({
            "name": item.name,
            "type": item.media_type,
            "data": base64::engine::general_purpose::STANDARD.encode(&item.bytes),
        }))
    }

    /// `library.remove(itemId)`.
    ///
    /// # Errors
    /// 400/404 for the id.
    pub async fn library_remove(&self, id: &LibraryId) -> Result<(), FxbotError> {
        self.check_open()?;
        let item = self.item(id).await?;
        store::remove(&self.docs, &blob_key(&item.id)).await?;
        store::remove(&self.docs, &item_key(&item.id)).await?;
        Ok(())
    }
}

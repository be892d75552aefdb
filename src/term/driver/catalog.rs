//! The model catalog in the terminal: fetched when first needed (a model screen, `/model <id>`),
//! never at start-up nor for a plain turn; fetched again after a sign-in changes what it lists.

use futures::channel::oneshot;

use crate::caps::{Clock, Host};

use super::{CatalogLoad, Shell, TermEnv};

/// How long `/model <id>` waits for the catalog it is checked against.
const CATALOG_WAIT_MS: u32 = 5_000;
/// How long a model screen waits for the catalog before it says the catalog did not answer.
const CATALOG_LOAD_MS: u32 = 60_000;

impl<H: Host + Clone + 'static, E: TermEnv + 'static> Shell<H, E> {
    /// Starts fetching the catalog unless it was fetched or is being fetched.
    pub(super) fn start_catalog(&self) {
        let idle = matches!(*self.inner.catalog.borrow(), CatalogLoad::Idle);
        if idle {
            *self.inner.catalog.borrow_mut() = CatalogLoad::Loading(Vec::new());
            self.load_catalog(false);
        }
    }

    /// Resolves once the catalog was fetched (or failed to be), fetching it if needed; after
    /// [`CATALOG_WAIT_MS`] at most (a catalog that never answers does not hold `/model` up).
    pub(super) async fn catalog_ready(&self) {
        self.start_catalog();
        let receiver = match &mut *self.inner.catalog.borrow_mut() {
            CatalogLoad::Loading(waiters) => {
                let (sender, receiver) = oneshot::channel();
                waiters.push(sender);
                receiver
            }
            CatalogLoad::Idle | CatalogLoad::Done => return,
        };
        let timeout = self.inner.agent.host().sleep(CATALOG_WAIT_MS);
        futures::future::select(receiver, Box::pin(timeout)).await;
    }

    /// Loads the catalog again if it was loaded before (the credential changed).
    pub(super) fn reload_catalog(&self) {
        let done = matches!(*self.inner.catalog.borrow(), CatalogLoad::Done);
        if done {
            *self.inner.catalog.borrow_mut() = CatalogLoad::Loading(Vec::new());
            self.load_catalog(true);
        }
    }

    /// Loads the catalog (`again`: anew, though the agent has one; else the agent's, which a
    /// turn with a named effort may have fetched already).
    fn load_catalog(&self, again: bool) {
        let shell = self.clone();
        self.inner.env.spawn(Box::pin(async move {
            let agent = &shell.inner.agent;
            let failed = if again {
                agent.load_catalog_result().await
            } else {
                agent.ensure_catalog(CATALOG_LOAD_MS).await
            }
            .err();
            let agent = &shell.inner.agent;
            let models = agent
                .catalog_ids()
                .into_iter()
                .map(|id| {
                    let efforts = agent.model_efforts(&id);
                    (id, efforts)
                })
                .collect();
            {
                let mut app = shell.inner.app.borrow_mut();
                match failed {
                    Some(message) => app.on_catalog_failed(&message),
                    None => app.set_models(models),
                }
            }
            let waiters = match std::mem::replace(
                &mut *shell.inner.catalog.borrow_mut(),
                CatalogLoad::Done,
            ) {
                CatalogLoad::Loading(waiters) => waiters,
                _ => Vec::new(),
            };
            for waiter in waiters {
                let _ = waiter.send(());
            }
            shell.flush();
        }));
    }
}

//! The Vercel teams a freshly signed-in user can bill AI Gateway usage to.

use super::endpoints::Issuer;
use super::error::{AuthError, Step};
use super::exchange::{exchange, get_json};
use super::json::object;
use super::secret::{is_token_shaped, Secret};
use crate::caps::{Cancel, Clock, Http};

/// Most teams we keep from one listing.
pub const MAX_TEAMS: usize = 1000;

/// One team. `id` and `slug` are non-empty visible ASCII (they may become a header value);
/// `name` is the listing's text as it is, at most 256 characters, with at least one visible
/// character (else the slug): the terminal draws it through its sanitizer, the one place that
/// removes control sequences.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Team {
    pub id: String,
    pub slug: String,
    pub name: String,
}

/// What the login UI should do about teams.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TeamChoice {
    /// No teams (or the listing failed): store the session without one.
    NoTeams,
    /// Exactly one team: use it without asking.
    Single(Team),
    /// Several: let the user pick (in listing order).
    Pick(Vec<Team>),
}

impl TeamChoice {
    /// Decides from a listing.
    #[must_use]
    pub fn from_teams(mut teams: Vec<Team>) -> Self {
        match teams.len() {
            0 => TeamChoice::NoTeams,
            1 => teams.pop().map_or(TeamChoice::NoTeams, TeamChoice::Single),
            _ => TeamChoice::Pick(teams),
        }
    }
}

/// Lists the teams the access token can see. Entries without a usable `id` and `slug` are
/// skipped.
///
/// # Errors
///
/// Transport failures, a status other than 200, or a body without a `teams` array. Login treats
/// every error as "no teams".
pub async fn fetch_teams<H, C>(
    http: &H,
    clock: &C,
    cancel: &Cancel,
    issuer: &Issuer,
    access_token: &Secret,
) -> Result<Vec<Team>, AuthError>
where
    H: Http + ?Sized,
    C: Clock + ?Sized,
{
    let request = get_json(issuer.teams_url(), Some(access_token.expose()));
    let response = exchange(http, clock, cancel, Step::Teams, request).await?;
    if response.status != 200 {
        return Err(AuthError::Rejected {
            step: Step::Teams,
            status: response.status,
            error: None,
        });
    }
    parse_teams(&response.body)
}

/// Reads a `{"teams":[{id,slug,name}]}` body.
///
/// # Errors
///
/// [`AuthError::MalformedResponse`] when there is no `teams` array.
pub fn parse_teams(body: &[u8]) -> Result<Vec<Team>, AuthError> {
    let teams = match object(body).and_then(|mut map| map.remove("teams")) {
        Some(serde_json::Value::Array(teams)) => teams,
        _ => {
            return Err(AuthError::MalformedResponse {
                step: Step::Teams,
                reason: "no teams array",
            })
        }
    };
    Ok(teams
        .iter()
        .filter_map(team_from_json)
        .take(MAX_TEAMS)
        .collect())
}

fn team_from_json(value: &serde_json::Value) -> Option<Team> {
    let member = |key| value.get(key).and_then(serde_json::Value::as_str);
    let usable = |text: &&str| is_token_shaped(text) && text.len() <= 256;
    let id = member("id").filter(usable)?.to_owned();
    let slug = member("slug").filter(usable)?.to_owned();
    let name: String = member("name")
        .map(|name| name.chars().take(256).collect())
        .filter(|name: &String| name.chars().any(|c| !c.is_control() && !c.is_whitespace()))
        .unwrap_or_else(|| slug.clone());
    Some(Team { id, slug, name })
}

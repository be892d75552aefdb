pub mod bot_args;
pub mod fake_host;

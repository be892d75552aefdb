pub mod fake_host;

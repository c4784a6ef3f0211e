//! etcd's real-server adapter: [`wire`], the model's requests and replies
//! over etcd's JSON gateway. The conformance test speaks it; `locksmith
//! real` and `confirm` do not drive etcd yet.

pub mod wire;

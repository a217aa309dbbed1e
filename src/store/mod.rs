//! A training run kept in object storage, so that self-play workers on many machines feed one
//! trainer (KataGo's and minigo's shared-storage set-up). [`Store`] is a small blocking client
//! over the `object_store` crate: `file:///path` (a shared filesystem), `s3://bucket/prefix`
//! (AWS or any S3-compatible server), `gs://`, `az://` and `memory://` (one process only).
//!
//! - [`layout`]: the names of the run's objects and the `latest` record.
//! - [`checkpoints`]: publishing a checkpoint and fetching one, checked against its hash.
//! - [`games`]: workers' uploads of game batches and the trainer's download of new ones.
//! - [`ingest`]: that download in a thread of its own.
//! - [`lease`]: one trainer per run, and a trainer that another has taken over from stops.
//! - [`retention`]: what the trainer deletes as the run goes on.
//!
//! Credentials come from the environment as each cloud's tools read it (`AWS_ACCESS_KEY_ID`,
//! `AWS_SECRET_ACCESS_KEY`, `AWS_ENDPOINT_URL`, `AWS_ALLOW_HTTP`, `GOOGLE_APPLICATION_CREDENTIALS`,
//! `AZURE_STORAGE_ACCOUNT_NAME`, ...; S3 also from `~/.aws/credentials`); no message ever shows
//! them: errors name the store by its URL and the object by its name.

pub mod checkpoints;
pub mod games;
pub mod ingest;
pub mod layout;
pub mod lease;
pub mod retention;
pub mod run_config;

use std::sync::Arc;

use futures_util::TryStreamExt;
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt, ObjectStoreScheme, PutMode, PutOptions, PutPayload, UpdateVersion};
use url::Url;

/// Why the store refused or failed an operation.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("'{url}' is not a store URL: {message} (use file:///path, s3://bucket/prefix, gs://, az:// or memory://)")]
    Url { url: String, message: String },
    #[error("store {url}: access refused while trying to {action} {name}: check the credentials (for S3: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY): {message}")]
    Access { url: String, action: &'static str, name: String, message: String },
    #[error("store {url}: cannot {action} {name}: {message}")]
    Failed { url: String, action: &'static str, name: String, message: String },
    #[error("store {url} holds no training run ({name} is missing): start the trainer first, or check the URL")]
    NoRun { url: String, name: String },
    #[error("store {url}: object {name} is malformed: {message}")]
    Malformed { url: String, name: String, message: String },
    #[error("{0}")]
    Local(String),
}

/// Whether a create-only upload made a new object or found one under that name.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Created {
    New,
    AlreadyThere,
}

/// An object's version as the store reported it: a conditional write
/// ([`Store::put_if_unchanged`]) succeeds only while the object is still at this version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    e_tag: Option<String>,
    version: Option<String>,
}

/// What a conditional write did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Swap {
    /// The object was written; this is its new version.
    Written(Version),
    /// Someone else wrote (or created, or deleted) the object since the version was read:
    /// nothing was written.
    Changed,
}

/// A run's objects under one URL, with blocking calls (a small runtime of its own drives the
/// asynchronous client; any thread may call).
pub struct Store {
    url: String,
    inner: Arc<dyn ObjectStore>,
    root: ObjectPath,
    runtime: tokio::runtime::Runtime,
    /// The credentials' values, blanked out of every error message.
    secrets: Vec<String>,
    /// Whether the objects are files of this machine (`file://`).
    local: bool,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("url", &self.url).finish()
    }
}

impl Store {
    /// Opens the store at `url`. Nothing is read yet: a missing store or bad credentials show
    /// at the first call.
    pub fn open(url: &str) -> Result<Store, StoreError> {
        let bad = |message: String| StoreError::Url { url: url.to_string(), message };
        let parsed = Url::parse(url).map_err(|e| bad(e.to_string()))?;
        let (scheme, _) = ObjectStoreScheme::parse(&parsed).map_err(|e| bad(e.to_string()))?;
        let options = environment_options(&scheme);
        let secrets = options
            .iter()
            .filter(|(key, value)| ["key", "secret", "token", "password", "credential"].iter().any(|k| key.contains(k)) && value.len() >= 4)
            .map(|(_, value)| value.clone())
            .collect();
        let (inner, root) = object_store::parse_url_opts(&parsed, options).map_err(|e| bad(e.to_string()))?;
        if scheme == ObjectStoreScheme::Local && !std::path::Path::new(parsed.path()).is_dir() {
            return Err(StoreError::Failed {
                url: url.to_string(),
                action: "open",
                name: parsed.path().to_string(),
                message: "no such folder (create it, or check the path of the shared filesystem)".to_string(),
            });
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("store-io")
            .enable_all()
            .build()
            .map_err(|e| bad(format!("cannot start its I/O runtime: {e}")))?;
        let local = scheme == ObjectStoreScheme::Local;
        Ok(Store { url: url.to_string(), inner: Arc::from(inner), root, runtime, secrets, local })
    }

    /// The URL the store was opened with.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// A short stable name of the URL, for local cache folders.
    pub fn cache_key(&self) -> String {
        format!("{:016x}", crate::fnv::hash(self.url.trim_end_matches('/').as_bytes()))
    }

    fn path(&self, name: &str) -> ObjectPath {
        name.split('/').filter(|part| !part.is_empty()).fold(self.root.clone(), |path, part| path.join(part))
    }

    /// The object's name relative to the run's root.
    fn relative(&self, path: &ObjectPath) -> String {
        let parts: Vec<String> = match path.prefix_match(&self.root) {
            Some(parts) => parts.map(|p| p.as_ref().to_string()).collect(),
            None => path.parts().map(|p| p.as_ref().to_string()).collect(),
        };
        parts.join("/")
    }

    fn error(&self, action: &'static str, name: &str, error: object_store::Error) -> StoreError {
        let url = self.url.clone();
        let name = name.to_string();
        let message = self.redact(&error.to_string());
        match error {
            object_store::Error::PermissionDenied { .. } | object_store::Error::Unauthenticated { .. } => {
                StoreError::Access { url, action, name, message }
            }
            _ => {
                // S3 servers answer a bad key with 403 and a code in the body.
                if ["AccessDenied", "SignatureDoesNotMatch", "InvalidAccessKeyId", "403 Forbidden"].iter().any(|m| message.contains(m)) {
                    StoreError::Access { url, action, name, message }
                } else {
                    StoreError::Failed { url, action, name, message }
                }
            }
        }
    }

    /// A client's error text as a log line may show it: a server's XML answer cut down to its
    /// code and message (it may quote the access key id, the request and its signature), and
    /// any credential's value blanked out.
    fn redact(&self, message: &str) -> String {
        let mut text = match message.find("<?xml").or_else(|| message.find("<Error>")) {
            Some(at) => {
                let tag = |name: &str| {
                    let open = format!("<{name}>");
                    let start = message[at..].find(&open)? + at + open.len();
                    let end = message[start..].find(&format!("</{name}>"))? + start;
                    Some(message[start..end].to_string())
                };
                let answer = [tag("Code"), tag("Message")].into_iter().flatten().collect::<Vec<_>>().join(": ");
                format!("{}{answer}", &message[..at])
            }
            None => message.to_string(),
        };
        for secret in &self.secrets {
            text = text.replace(secret.as_str(), "<redacted>");
        }
        text
    }

    /// The object `name`, or `None` when there is none.
    pub fn get(&self, name: &str) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.get_versioned(name)?.map(|(bytes, _)| bytes))
    }

    /// The object `name` and its version, or `None` when there is none.
    pub fn get_versioned(&self, name: &str) -> Result<Option<(Vec<u8>, Version)>, StoreError> {
        let path = self.path(name);
        let fetched = self.runtime.block_on(async {
            match self.inner.get(&path).await {
                Ok(result) => {
                    let version = Version { e_tag: result.meta.e_tag.clone(), version: result.meta.version.clone() };
                    result.bytes().await.map(|bytes| Some((bytes.to_vec(), version)))
                }
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(e),
            }
        });
        fetched.map_err(|e| self.error("read", name, e))
    }

    /// Writes object `name` only if it is still at version `expected` (`None`: only if there
    /// is no such object), as one operation of the store: of two writers that read the same
    /// version, one succeeds and the other finds it [`Swap::Changed`]. S3 (`If-Match` on the
    /// ETag), Google Cloud Storage and Azure do this on the server. A file store has no such
    /// write, so the check and the write are made under an exclusive lock on `<name>.lock`
    /// beside the object, which every writer of this program takes.
    pub fn put_if_unchanged(&self, name: &str, bytes: Vec<u8>, expected: Option<&Version>) -> Result<Swap, StoreError> {
        let path = self.path(name);
        let mode = match expected {
            None => PutMode::Create,
            Some(v) => PutMode::Update(UpdateVersion { e_tag: v.e_tag.clone(), version: v.version.clone() }),
        };
        let options = PutOptions { mode, ..PutOptions::default() };
        // A payload's clone shares its bytes.
        let payload = PutPayload::from(bytes);
        match self.runtime.block_on(self.inner.put_opts(&path, payload.clone(), options)) {
            Ok(put) => Ok(Swap::Written(Version { e_tag: put.e_tag, version: put.version })),
            Err(object_store::Error::AlreadyExists { .. } | object_store::Error::Precondition { .. }) => Ok(Swap::Changed),
            Err(object_store::Error::NotImplemented { .. }) if self.local && expected.is_some() => {
                self.put_if_unchanged_under_lock(name, payload, expected)
            }
            Err(e) => Err(self.error("write", name, e)),
        }
    }

    /// [`Store::put_if_unchanged`] on a file store: compare and write while holding the lock.
    fn put_if_unchanged_under_lock(&self, name: &str, payload: PutPayload, expected: Option<&Version>) -> Result<Swap, StoreError> {
        let lock_path = std::path::Path::new("/").join(self.path(&format!("{name}.lock")).as_ref());
        let failed = |message: String| StoreError::Failed { url: self.url.clone(), action: "lock", name: format!("{name}.lock"), message };
        let lock =
            std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&lock_path).map_err(|e| failed(e.to_string()))?;
        lock.lock().map_err(|e| failed(e.to_string()))?;
        let path = self.path(name);
        let current = match self.runtime.block_on(self.inner.head(&path)) {
            Ok(meta) => Some(Version { e_tag: meta.e_tag, version: meta.version }),
            Err(object_store::Error::NotFound { .. }) => None,
            Err(e) => return Err(self.error("look up", name, e)),
        };
        if current.as_ref() != expected {
            return Ok(Swap::Changed);
        }
        let put = self.runtime.block_on(self.inner.put(&path, payload)).map_err(|e| self.error("write", name, e))?;
        // The lock goes with the file handle, after the write.
        drop(lock);
        Ok(Swap::Written(Version { e_tag: put.e_tag, version: put.version }))
    }

    /// The objects `names`, in order, each if it holds at most `limit` bytes, read at the same
    /// time (a slow store's latency is paid once, not once an object). Reading an object stops
    /// as soon as it holds more, so that memory stays bounded whatever its size.
    pub fn get_many_at_most(&self, names: &[String], limit: u64) -> Vec<Result<Bounded, StoreError>> {
        let reads = names.iter().map(|name| async move {
            let path = self.path(name);
            let mut stream = match self.inner.get(&path).await {
                Ok(result) => result.into_stream(),
                Err(object_store::Error::NotFound { .. }) => return Ok(Bounded::Missing),
                Err(e) => return Err(e),
            };
            let mut bytes = Vec::new();
            while let Some(chunk) = stream.try_next().await? {
                if (bytes.len() + chunk.len()) as u64 > limit {
                    return Ok(Bounded::TooLarge);
                }
                bytes.extend_from_slice(&chunk);
            }
            Ok(Bounded::Whole(bytes))
        });
        let fetched = self.runtime.block_on(futures_util::future::join_all(reads));
        fetched.into_iter().zip(names).map(|(result, name)| result.map_err(|e| self.error("read", name, e))).collect()
    }

    /// Copies object `from` to `to` inside the store, without reading it here.
    pub fn copy(&self, from: &str, to: &str) -> Result<(), StoreError> {
        let (source, target) = (self.path(from), self.path(to));
        self.runtime.block_on(self.inner.copy(&source, &target)).map_err(|e| self.error("copy", from, e))
    }

    /// Creates object `name` with `bytes` unless one exists under that name (then nothing is
    /// written). Readers see the whole object or none of it.
    pub fn put_new(&self, name: &str, bytes: Vec<u8>) -> Result<Created, StoreError> {
        let path = self.path(name);
        let outcome = self.runtime.block_on(async {
            let options = PutOptions { mode: PutMode::Create, ..PutOptions::default() };
            match self.inner.put_opts(&path, PutPayload::from(bytes.clone()), options).await {
                Ok(_) => Ok(Created::New),
                Err(object_store::Error::AlreadyExists { .. }) => Ok(Created::AlreadyThere),
                // Stores without conditional writes: look first; names are unique by content.
                Err(object_store::Error::NotImplemented { .. }) => match self.inner.head(&path).await {
                    Ok(_) => Ok(Created::AlreadyThere),
                    Err(object_store::Error::NotFound { .. }) => self.inner.put(&path, PutPayload::from(bytes)).await.map(|_| Created::New),
                    Err(e) => Err(e),
                },
                Err(e) => Err(e),
            }
        });
        outcome.map_err(|e| self.error("create", name, e))
    }

    /// Writes object `name` (replacing any earlier one) and returns when it was written by the
    /// store's clock, milliseconds since 1970: the store's time now, whatever this machine's
    /// clock says.
    pub fn put_timed(&self, name: &str, bytes: Vec<u8>) -> Result<u64, StoreError> {
        self.put(name, bytes)?;
        self.modified_ms(name)?.ok_or_else(|| StoreError::Failed {
            url: self.url.clone(),
            action: "look up",
            name: name.to_string(),
            message: "the object just written is missing".to_string(),
        })
    }

    /// Writes object `name`, replacing any earlier one (the `latest` record, metrics).
    pub fn put(&self, name: &str, bytes: Vec<u8>) -> Result<(), StoreError> {
        let path = self.path(name);
        self.runtime.block_on(self.inner.put(&path, PutPayload::from(bytes))).map(|_| ()).map_err(|e| self.error("write", name, e))
    }

    /// Removes object `name` (absent is fine).
    pub fn delete(&self, name: &str) -> Result<(), StoreError> {
        let path = self.path(name);
        match self.runtime.block_on(self.inner.delete(&path)) {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(self.error("delete", name, e)),
        }
    }

    /// When object `name` was last written, by the store's clock (milliseconds since 1970), or
    /// `None` when there is none.
    pub fn modified_ms(&self, name: &str) -> Result<Option<u64>, StoreError> {
        let path = self.path(name);
        match self.runtime.block_on(self.inner.head(&path)) {
            Ok(meta) => Ok(Some(u64::try_from(meta.last_modified.timestamp_millis()).unwrap_or(0))),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(self.error("look up", name, e)),
        }
    }

    /// One level of the folder `prefix`: the objects directly in it and the names of its
    /// subfolders (relative to the run's root), each sorted.
    pub fn list_level(&self, prefix: &str) -> Result<(Vec<Listed>, Vec<String>), StoreError> {
        let folder = self.path(prefix);
        match self.runtime.block_on(self.inner.list_with_delimiter(Some(&folder))) {
            Ok(listed) => {
                let mut objects: Vec<Listed> = listed.objects.iter().map(|meta| self.listed(meta)).collect();
                let mut folders: Vec<String> = listed.common_prefixes.iter().map(|path| self.relative(path)).collect();
                objects.sort();
                folders.sort();
                Ok((objects, folders))
            }
            Err(object_store::Error::NotFound { .. }) => Ok((Vec::new(), Vec::new())),
            Err(e) => Err(self.error("list", prefix, e)),
        }
    }

    /// Every object under the folder `prefix`, at any depth, sorted by name.
    pub fn list_entries(&self, prefix: &str) -> Result<Vec<Listed>, StoreError> {
        let folder = self.path(prefix);
        let listed = self.runtime.block_on(self.inner.list(Some(&folder)).try_collect::<Vec<_>>());
        let mut entries: Vec<Listed> = match listed {
            Ok(objects) => objects.iter().map(|meta| self.listed(meta)).collect(),
            Err(object_store::Error::NotFound { .. }) => Vec::new(),
            Err(e) => return Err(self.error("list", prefix, e)),
        };
        entries.sort();
        Ok(entries)
    }

    /// The names (relative to the run's root) of every object under the folder `prefix`, at
    /// any depth, sorted.
    pub fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        Ok(self.list_entries(prefix)?.into_iter().map(|entry| entry.name).collect())
    }

    fn listed(&self, meta: &object_store::ObjectMeta) -> Listed {
        Listed { name: self.relative(&meta.location), size: meta.size }
    }
}

/// An object as a listing shows it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Listed {
    /// The name, relative to the run's root.
    pub name: String,
    /// The size in bytes.
    pub size: u64,
}

/// What [`Store::get_many_at_most`] found of an object.
#[derive(Debug, PartialEq, Eq)]
pub enum Bounded {
    /// The whole object, within the limit.
    Whole(Vec<u8>),
    /// An object over the limit (not read past it).
    TooLarge,
    /// No object under that name.
    Missing,
}

/// A record as the run's JSON objects hold it: pretty-printed, with a final newline.
pub fn record_json(value: &impl serde::Serialize) -> Vec<u8> {
    format!("{}\n", serde_json::to_string_pretty(value).expect("the record serialises")).into_bytes()
}

/// This machine's name as the system gives it (empty when it cannot be read), for the records
/// that say who wrote what.
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::env::var("HOSTNAME"))
        .map(|h| h.trim().to_string())
        .unwrap_or_default()
}

/// The settings of `scheme`'s client from the environment: variables with the cloud's prefix
/// (`AWS_`, `GOOGLE_`, `AZURE_`), and for S3 the keys of `~/.aws/credentials` (profile
/// `AWS_PROFILE` or `default`) where the environment has none.
fn environment_options(scheme: &ObjectStoreScheme) -> Vec<(String, String)> {
    let prefix = match scheme {
        ObjectStoreScheme::AmazonS3 => "AWS_",
        ObjectStoreScheme::GoogleCloudStorage => "GOOGLE_",
        ObjectStoreScheme::MicrosoftAzure => "AZURE_",
        _ => return Vec::new(),
    };
    let mut options: Vec<(String, String)> =
        std::env::vars().filter(|(key, _)| key.starts_with(prefix)).map(|(key, value)| (key.to_ascii_lowercase(), value)).collect();
    if *scheme == ObjectStoreScheme::AmazonS3 && !options.iter().any(|(key, _)| key == "aws_access_key_id") {
        options.extend(aws_credentials_file());
    }
    options
}

/// The access key, secret and session token of the profile in `~/.aws/credentials`
/// (`AWS_SHARED_CREDENTIALS_FILE` elsewhere), if there is one.
fn aws_credentials_file() -> Vec<(String, String)> {
    let path = match std::env::var_os("AWS_SHARED_CREDENTIALS_FILE") {
        Some(path) => std::path::PathBuf::from(path),
        None => match std::env::var_os("HOME") {
            Some(home) => std::path::Path::new(&home).join(".aws").join("credentials"),
            None => return Vec::new(),
        },
    };
    let Ok(text) = std::fs::read_to_string(path) else { return Vec::new() };
    let profile = std::env::var("AWS_PROFILE").unwrap_or_else(|_| "default".to_string());
    profile_keys(&text, &profile)
}

/// The keys of section `[profile]` of an AWS credentials file, as client settings.
fn profile_keys(text: &str, profile: &str) -> Vec<(String, String)> {
    let mut in_profile = false;
    let mut keys = Vec::new();
    for line in text.lines().map(str::trim) {
        if let Some(section) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            in_profile = section.trim() == profile;
        } else if let (true, Some((key, value))) = (in_profile, line.split_once('=')) {
            let key = key.trim().to_ascii_lowercase();
            if matches!(key.as_str(), "aws_access_key_id" | "aws_secret_access_key" | "aws_session_token") {
                keys.push((key, value.trim().to_string()));
            }
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::{profile_keys, Store};

    #[test]
    fn error_text_keeps_the_servers_code_and_loses_keys_and_signatures() {
        let mut store = Store::open("memory://").unwrap();
        store.secrets = vec!["AKIDEXAMPLE42".to_string()];
        let message = "Error performing GET http://127.0.0.1:8333/b/x in 2ms - Server returned non-2xx status code: 403 Forbidden: \
            <?xml version=\"1.0\"?><Error><Code>InvalidAccessKeyId</Code><Message>The key does not exist.</Message>\
            <AWSAccessKeyId>AKIDEXAMPLE42</AWSAccessKeyId><StringToSign>AWS4-HMAC-SHA256 abc</StringToSign></Error>";
        let redacted = store.redact(message);
        assert!(redacted.ends_with("403 Forbidden: InvalidAccessKeyId: The key does not exist."), "{redacted}");
        assert_eq!(store.redact("bad key AKIDEXAMPLE42 used"), "bad key <redacted> used");
    }

    #[test]
    fn the_named_profile_of_a_credentials_file_is_read() {
        let text = "[default]\naws_access_key_id = A\naws_secret_access_key = B\n\n[other]\naws_access_key_id=C\nregion = x\n";
        assert_eq!(
            profile_keys(text, "default"),
            vec![("aws_access_key_id".to_string(), "A".to_string()), ("aws_secret_access_key".to_string(), "B".to_string())]
        );
        assert_eq!(profile_keys(text, "other"), vec![("aws_access_key_id".to_string(), "C".to_string())]);
        assert!(profile_keys(text, "missing").is_empty());
    }
}

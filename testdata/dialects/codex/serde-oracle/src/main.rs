// For each line of stdin (split as Rust's str::lines splits, as codex's
// rollout loader does), print "ok" when serde_json reads it and "err
// <message>" when it does not; a line that is only whitespace prints
// "skip" (the loader skips it before parsing).
//
// Mode "json" (the default) asks serde_json::from_str::<Value> alone. Mode
// "record" then reads the value as a rollout line, with the shape sessionls
// checks (docs/semantics.md, "Codex CLI"): the members it reads, typed as
// codex-rs types them, and serde_json::Value wherever sessionls does not
// look. It tests that sessionls applies serde's rules (adjacent and
// internal tags, `other`, Option, untagged, flatten, repeated keys) as serde
// does; it is not codex's code.
use serde::Deserialize;
use serde_json::Value;
use std::io::Read;

#[derive(Deserialize)]
#[allow(dead_code)]
struct RolloutLine {
    timestamp: String,
    #[serde(flatten)]
    item: Item,
}

#[derive(Deserialize)]
#[allow(dead_code)]
#[serde(tag = "type", content = "payload", rename_all = "snake_case")]
enum Item {
    SessionMeta(Meta),
    ResponseItem(Response),
    Compacted(Compacted),
    TurnContext(Turn),
    EventMsg(Event),
    // Types newer codex versions write, which sessionls reads unchecked.
    InterAgentCommunication(Value),
    InterAgentCommunicationMetadata(Value),
    TokenUsageRecord(Value),
    WorldState(Value),
    RetainedContext(Value),
    SecurityRiskScore(Value),
    RealtimeItem(Value),
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Meta {
    id: String,
    timestamp: String,
    cwd: String,
    originator: String,
    cli_version: String,
}

#[derive(Deserialize)]
#[allow(dead_code)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Response {
    Message {
        role: String,
        content: Vec<Content>,
    },
    Reasoning {
        summary: Vec<Value>,
        #[serde(default)]
        content: Option<Value>,
        encrypted_content: Option<String>,
    },
    LocalShellCall {
        call_id: Option<String>,
        status: String,
        action: serde_json::Map<String, Value>,
    },
    FunctionCall {
        name: String,
        arguments: String,
        call_id: String,
    },
    FunctionCallOutput {
        call_id: String,
        output: Output,
    },
    CustomToolCall {
        call_id: String,
        name: String,
        input: String,
    },
    CustomToolCallOutput {
        call_id: String,
        output: Output,
    },
    ToolSearchCall {
        call_id: Option<String>,
    },
    ToolSearchOutput {
        call_id: Option<String>,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
#[allow(dead_code)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Content {
    InputText { text: String },
    InputImage { image_url: String },
    OutputText { text: String },
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
#[allow(dead_code)]
#[serde(untagged)]
enum Output {
    Text(String),
    Items(Vec<Value>),
    Object(serde_json::Map<String, Value>),
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Compacted {
    message: String,
    #[serde(default)]
    replacement_history: Option<Vec<Response>>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Turn {
    cwd: String,
    model: String,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Event {
    #[serde(rename = "type")]
    kind: String,
}

fn main() {
    let record = std::env::args().nth(1).as_deref() == Some("record");
    let mut text = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut text) {
        println!("fatal {e}");
        return;
    }
    for line in text.lines() {
        if line.trim().is_empty() {
            println!("skip");
            continue;
        }
        let v = match serde_json::from_str::<Value>(line) {
            Ok(v) => v,
            Err(e) => {
                println!("err {e}");
                continue;
            }
        };
        if record {
            if let Err(e) = serde_json::from_value::<RolloutLine>(v) {
                println!("err {e}");
                continue;
            }
        }
        println!("ok");
    }
}

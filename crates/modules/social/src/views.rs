//! What the chat routes take and answer, as types: the service reads these bodies and returns
//! these views, and the OpenAPI document describes both from the same declarations. A `title`
//! names the component the document declares (`SocialChatView`, `SocialChatMessage`…); the rest
//! are named after their operation.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use stoa_api::endpoint::{Extended, Row};
use uuid::Uuid;

use crate::chats::{MAX_FILES, MAX_MEMBERS, MAX_MESSAGE};

stoa_api::component!(SocialChat, SocialMessage, Translations, FileStorageFile);

// ---- answers -------------------------------------------------------------------------------

/// A profile as others see it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "SocialProfileCard")]
pub struct ProfileCard {
    pub id: Uuid,
    pub slug: Option<String>,
    pub admin_title: Option<String>,
    pub title: Row<Translations>,
    pub variant: Option<String>,
}

/// A member of a chat: its profile card and read mark.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "SocialChatMember")]
pub struct ChatMember {
    #[serde(flatten)]
    pub card: ProfileCard,
    /// The position of the last message this member has read
    pub last_read: i64,
}

/// One emoji on a message and who left it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "SocialReactionCount")]
pub struct ReactionCount {
    pub emoji: String,
    pub count: usize,
    pub profile_ids: Vec<Uuid>,
}

/// A file attached to a message.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "SocialMessageFile")]
pub struct MessageFile {
    pub id: Uuid,
    pub file: Option<String>,
    pub mime_type: Option<String>,
    pub size: Option<i64>,
    pub admin_title: Option<String>,
}

/// A message with its place in the chat, author, reactions and files.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "SocialChatMessage")]
pub struct InChat {
    pub chat_id: Uuid,
    /// 1, 2, 3… in the chat
    pub position: i64,
    /// The author's profile
    pub profile_id: Option<Uuid>,
    pub reactions: Vec<ReactionCount>,
    pub files: Vec<MessageFile>,
}

/// A message record with its place in the chat, author, reactions and files.
pub type ChatMessage = Extended<SocialMessage, InChat>;

/// A chat with its members, newest message and what the profile has not read.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "SocialChatView")]
pub struct ChatState {
    pub members: Vec<ChatMember>,
    pub last_message: Option<ChatMessage>,
    pub unread: u64,
    pub last_read: i64,
}

/// A chat record with its members, newest message and what the profile has not read.
pub type ChatView = Extended<SocialChat, ChatState>;

/// Unread messages over all the subject's chats (`subjectSocialUnread`).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Unread {
    pub unread: u64,
    pub capped: bool,
    pub chats: u64,
    pub profile_ids: Vec<Uuid>,
}

/// Where a profile's read mark stands in a chat (`subjectSocialChatRead`).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadMark {
    pub chat_id: Uuid,
    pub last_read: i64,
    pub unread: u64,
}

/// A deleted message (`subjectSocialMessageDelete`).
#[derive(Debug, Serialize, JsonSchema)]
pub struct Deleted {
    pub ok: bool,
    pub id: Uuid,
}

/// An AI profile's state (`socialProfileAi`).
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(title = "SocialProfileAiState")]
pub struct AiState {
    /// The profile is of the variant artificial-intelligence
    pub assistant: bool,
    /// An AI service is configured: without one the profile stays silent
    pub configured: bool,
    pub model: Option<String>,
    /// YYYY-MM
    pub month: String,
    pub used: i64,
    pub budget: i64,
}

// ---- bodies --------------------------------------------------------------------------------

/// An id in a list: the id, or an object carrying it (`{id}`, as the original client sends).
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(with = "Uuid")]
pub enum IdRef {
    Id(Uuid),
    Object { id: Uuid },
}

impl IdRef {
    pub fn id(self) -> Uuid {
        match self {
            IdRef::Id(id) | IdRef::Object { id } => id,
        }
    }
}

/// A new profile to chat under (`subjectSocialProfileCreate`).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NewProfile {
    #[schemars(length(min = 1, max = 100))]
    pub title: String,
}

/// A new chat with other profiles (`subjectSocialChatStart`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewChat {
    #[schemars(length(min = 1, max = MAX_MEMBERS))]
    pub profile_ids: Vec<IdRef>,
    #[schemars(length(max = 500))]
    pub title: Option<String>,
}

/// How far a chat has been read (`subjectSocialChatRead`); none: up to its newest message.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadUpTo {
    pub message_id: Option<Uuid>,
}

/// A new message (`subjectSocialMessageCreate`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("anyOf" = [{"required": ["description"]}, {"required": ["fileIds"], "properties": {"fileIds": {"minItems": 1}}}]))]
pub struct NewMessage {
    /// The text; it may be left out when files are attached
    #[schemars(length(max = MAX_MESSAGE))]
    pub description: Option<String>,
    /// Files to attach (at most 10): the profile's uploads (POST …/profiles/{profileId}/files) or public files
    #[serde(default)]
    #[schemars(length(max = MAX_FILES))]
    pub file_ids: Vec<IdRef>,
}

/// A message's new text (`subjectSocialMessageEdit`).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MessageText {
    #[schemars(length(min = 1, max = MAX_MESSAGE))]
    pub description: String,
}

/// A reaction to add or take back (`subjectSocialMessageReact`).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Reaction {
    #[schemars(length(min = 1, max = 16))]
    pub emoji: String,
}

//! The records the chat logic reads, as typed rows: each field named once with its column (a test
//! holds them against the declarations).

use serde_json::Value;
use uuid::Uuid;

stoa_store::typed_row! {
    /// A profile as its card shows it.
    pub struct ProfileRow for "social.profile" {
        id: Uuid = "id",
        slug: Option<String> = "slug",
        admin_title: Option<String> = "adminTitle",
        /// Translations by language.
        title: Option<Value> = "title",
        variant: Option<String> = "variant",
    }
}

stoa_store::typed_row! {
    /// A profile as the AI participant reads it: its variant, instructions and monthly budget.
    pub struct AssistantRow for "social.profile" {
        id: Uuid = "id",
        variant: Option<String> = "variant",
        /// Instructions by language.
        ai_prompt: Option<Value> = "aiPrompt",
        ai_monthly_tokens: Option<i64> = "aiMonthlyTokens",
        ai_tokens_used: Option<i64> = "aiTokensUsed",
        /// `YYYY-MM`: the month `ai_tokens_used` counts.
        ai_month: Option<String> = "aiMonth",
    }
}

stoa_store::typed_row! {
    /// A chat, as much of it as telling a direct chat apart reads.
    pub struct ChatRow for "social.chat" {
        id: Uuid = "id",
        title: Option<String> = "title",
    }
}

stoa_store::typed_row! {
    /// A profile's membership of a chat, with its read mark.
    pub struct MemberRow for "social.profiles-to-chats" {
        id: Uuid = "id",
        profile_id: Option<Uuid> = "profileId",
        chat_id: Option<Uuid> = "chatId",
        /// The position of the last message the member has read.
        last_read: Option<i64> = "lastRead",
    }
}

stoa_store::typed_row! {
    /// A message's place in its chat.
    pub struct LinkRow for "social.chats-to-messages" {
        chat_id: Option<Uuid> = "chatId",
        message_id: Option<Uuid> = "messageId",
        /// The message's position in the chat (microseconds).
        order_index: Option<i64> = "orderIndex",
    }
}

stoa_store::typed_row! {
    /// The author of a message.
    pub struct AuthorRow for "social.profiles-to-messages" {
        message_id: Option<Uuid> = "messageId",
        profile_id: Option<Uuid> = "profileId",
    }
}

stoa_store::typed_row! {
    /// A profile's reaction to a message.
    pub struct ReactionRow for "social.reaction" {
        id: Uuid = "id",
        message_id: Option<Uuid> = "messageId",
        profile_id: Option<Uuid> = "profileId",
        emoji: Option<String> = "emoji",
    }
}

stoa_store::typed_row! {
    /// A file attached to a message.
    pub struct AttachmentRow for "social.messages-to-file-storage-module-files" {
        message_id: Option<Uuid> = "messageId",
        file_id: Option<Uuid> = "fileStorageModuleFileId",
    }
}

stoa_store::typed_row! {
    /// A profile's upload (or another file an admin gave it).
    pub struct OwnFileRow for "social.profiles-to-file-storage-module-files" {
        id: Uuid = "id",
        file_id: Option<Uuid> = "fileStorageModuleFileId",
    }
}

/// The typed rows of `records`; an internal error when one lacks a column its row needs.
pub use stoa_store::typed::rows as typed;

stoa_store::rows_declared!(
    [crate::declarations()],
    ProfileRow,
    AssistantRow,
    ChatRow,
    MemberRow,
    LinkRow,
    AuthorRow,
    ReactionRow,
    AttachmentRow,
    OwnFileRow,
);

//! The original system's tables (DOMAIN §2 of the specification, at the commit it describes):
//! which table holds each entity and relation, by its SPS module and name. Relation tables carry
//! a random suffix, so the names are listed, not derived.

/// `(SPS module, SPS entity or relation name, table)`, in the order DOMAIN §2 lists them.
pub const TABLES: &[(&str, &str, &str)] = &[
    ("website-builder", "button", "sps_w_b_button"),
    ("website-builder", "buttons-array", "sps_w_b_bs_ay_8m3"),
    ("website-builder", "feature", "sps_w_b_feature"),
    ("website-builder", "logotype", "sps_w_b_logotype"),
    ("website-builder", "slide", "sps_w_b_slide"),
    ("website-builder", "slider", "sps_w_b_slider"),
    ("website-builder", "widget", "sps_w_b_widgets"),
    (
        "website-builder",
        "buttons-arrays-to-buttons",
        "sps_w_b_bs_as_to_bs_i0l",
    ),
    (
        "website-builder",
        "buttons-to-file-storage-module-files",
        "sps_w_b_bs_to_fe_se_me_fs_m3s",
    ),
    (
        "website-builder",
        "features-to-buttons-arrays",
        "sps_w_b_fe_to_bs_as_mc2",
    ),
    (
        "website-builder",
        "features-to-file-storage-module-files",
        "sps_w_b_fs_to_fe_se_me_fs_idk",
    ),
    (
        "website-builder",
        "logotypes-to-file-storage-module-files",
        "sps_w_b_ls_to_fe_se_me_fs_uas",
    ),
    ("website-builder", "sliders-to-slides", "sps_w_b_ss_to_ss"),
    (
        "website-builder",
        "slides-to-buttons-arrays",
        "sps_w_b_ss_to_bs_as_mot",
    ),
    (
        "website-builder",
        "slides-to-file-storage-module-files",
        "sps_w_b_ss_to_fe_se_me_fs_ekr",
    ),
    (
        "website-builder",
        "widgets-to-buttons-arrays",
        "sps_w_b_ws_to_bs_as_pmd",
    ),
    (
        "website-builder",
        "widgets-to-features",
        "sps_w_b_ws_to_fs_c2d",
    ),
    (
        "website-builder",
        "widgets-to-file-storage-module-files",
        "sps_w_b_ws_to_fe_se_me_fs_abs",
    ),
    (
        "website-builder",
        "widgets-to-logotypes",
        "sps_w_b_ws_to_ls_pbd",
    ),
    (
        "website-builder",
        "widgets-to-sliders",
        "sps_w_b_ws_to_ss_dc4",
    ),
    ("host", "layout", "sps_h_layout"),
    ("host", "metadata", "sps_h_metadata"),
    ("host", "page", "sps_h_page"),
    ("host", "widget", "sps_h_widget"),
    ("host", "layouts-to-widgets", "sps_h_ls_to_ws_v2d"),
    ("host", "pages-to-layouts", "sps_h_ps_to_ls_gxd"),
    ("host", "pages-to-metadata", "sps_h_ps_to_ma_4m4"),
    ("host", "pages-to-widgets", "sps_h_ps_to_ws_xyv"),
    (
        "host",
        "widgets-to-external-widgets",
        "sps_h_ws_to_el_ws_1g0",
    ),
    ("blog", "article", "sps_blog_article"),
    ("blog", "category", "sps_blog_category"),
    ("blog", "widget", "sps_blog_widget"),
    (
        "blog",
        "articles-to-ecommerce-module-products",
        "bg_as_to_ee_me_ps_bd9",
    ),
    (
        "blog",
        "articles-to-file-storage-module-files",
        "sps_blog_as_to_fe_se_me_fs_d24",
    ),
    (
        "blog",
        "articles-to-website-builder-module-widgets",
        "sps_blog_as_to_we_br_me_wt_v5b",
    ),
    ("blog", "categories-to-articles", "sps_blog_cs_to_as_d3r"),
    (
        "blog",
        "categories-to-website-builder-module-widgets",
        "sps_blog_cs_to_we_br_me_wt_7d2",
    ),
    ("blog", "widgets-to-articles", "bg_ws_to_as_y18"),
    ("blog", "widgets-to-categories", "bg_ws_to_cs_b03"),
    ("ecommerce", "attribute", "sps_ee_attribute"),
    ("ecommerce", "attribute-key", "sps_ee_ae_ky"),
    ("ecommerce", "category", "sps_ee_category"),
    ("ecommerce", "order", "sps_ee_order"),
    ("ecommerce", "product", "sps_ee_product"),
    ("ecommerce", "store", "sps_ee_store"),
    ("ecommerce", "widget", "sps_ee_widget"),
    (
        "ecommerce",
        "attribute-keys-to-attributes",
        "sps_ee_ae_ks_to_as_v3g",
    ),
    (
        "ecommerce",
        "attributes-to-billing-module-currencies",
        "sps_ee_as_to_bg_me_cs_6bg",
    ),
    (
        "ecommerce",
        "categories-to-file-storage-module-files",
        "sps_ee_cs_to_fe_se_me_fs_vr3",
    ),
    ("ecommerce", "categories-to-products", "sps_ee_cs_to_ps_d4v"),
    (
        "ecommerce",
        "orders-to-billing-module-currencies",
        "sps_ee_os_to_bg_me_cs_b33",
    ),
    (
        "ecommerce",
        "orders-to-billing-module-payment-intents",
        "sps_ee_os_to_bg_me_pt_is_cvb",
    ),
    (
        "ecommerce",
        "orders-to-file-storage-module-files",
        "sps_ee_os_to_fe_se_me_fs_b06",
    ),
    ("ecommerce", "orders-to-products", "sps_ee_os_to_ps_d4c"),
    (
        "ecommerce",
        "orders-to-social-module-chats",
        "sps_ee_os_to_sl_me_cs_lg2",
    ),
    ("ecommerce", "products-to-attributes", "sps_ee_ps_to_as_c2s"),
    (
        "ecommerce",
        "products-to-file-storage-module-files",
        "sps_ee_ps_to_fe_se_me_fs_3cv",
    ),
    (
        "ecommerce",
        "products-to-website-builder-module-widgets",
        "sps_ee_ps_to_we_br_me_ws_v3w",
    ),
    ("ecommerce", "stores-to-attributes", "sps_ee_ss_to_as_cv3"),
    ("ecommerce", "stores-to-orders", "sps_ee_ss_to_os_v03"),
    ("ecommerce", "stores-to-products", "sps_ee_ss_to_ps_vn7"),
    (
        "ecommerce",
        "stores-to-products-to-attributes",
        "sps_ee_ss_to_ps_to_as_v04",
    ),
    ("ecommerce", "widgets-to-categories", "sps_ee_ws_to_cs_cv3"),
    ("ecommerce", "widgets-to-products", "sps_ee_ws_to_ps_b04"),
    ("ecommerce", "widgets-to-stores", "sps_ee_ws_to_ss_cv3"),
    ("rbac", "action", "sps_rc_action"),
    ("rbac", "identity", "sps_rc_identity"),
    ("rbac", "role", "sps_rc_role"),
    ("rbac", "session", "sps_rc_session"),
    ("rbac", "subject", "sps_rc_subject"),
    ("rbac", "widget", "sps_rc_widget"),
    ("rbac", "roles-to-actions", "sps_rc_rs_to_as_mz2"),
    (
        "rbac",
        "roles-to-ecommerce-module-products",
        "sps_rc_rs_to_ee_me_ps_cv3",
    ),
    (
        "rbac",
        "subjects-to-billing-module-payment-intents",
        "sps_rc_ss_to_bg_me_pt_is_fv3",
    ),
    (
        "rbac",
        "subjects-to-blog-module-articles",
        "sps_rc_ss_to_bg_me_as_b03",
    ),
    (
        "rbac",
        "subjects-to-ecommerce-module-orders",
        "sps_rc_ss_to_ee_me_os_oq2",
    ),
    (
        "rbac",
        "subjects-to-ecommerce-module-products",
        "rc_ss_to_ee_me_ps_whq",
    ),
    ("rbac", "subjects-to-identities", "sps_rc_ss_to_is_h58"),
    (
        "rbac",
        "subjects-to-notification-module-topics",
        "sps_rc_ss_to_nn_me_ts_cfg",
    ),
    ("rbac", "subjects-to-roles", "sps_rc_ss_to_rs_3nw"),
    ("rbac", "subjects-to-sessions", "sps_rc_ss_to_ss_1eh"),
    (
        "rbac",
        "subjects-to-social-module-profiles",
        "rc_ss_to_sl_me_ps_ges",
    ),
    ("social", "attribute", "sl_attribute"),
    ("social", "attribute-key", "sl_ae_ky"),
    ("social", "chat", "sl_chat"),
    ("social", "message", "sl_message"),
    ("social", "profile", "sl_profile"),
    ("social", "widget", "sl_widget"),
    (
        "social",
        "attribute-keys-to-attributes",
        "sl_ae_ks_to_as_b02",
    ),
    ("social", "chats-to-messages", "sl_cs_to_ms_e6r"),
    (
        "social",
        "messages-to-file-storage-module-files",
        "sl_ms_to_fe_se_me_fs_3v0",
    ),
    ("social", "profiles-to-attributes", "sl_ps_to_as_v06"),
    ("social", "profiles-to-chats", "sl_ps_to_cs_m2s"),
    (
        "social",
        "profiles-to-ecommerce-module-products",
        "sl_pe_to_ee_me_ps_4b2",
    ),
    (
        "social",
        "profiles-to-file-storage-module-files",
        "sl_ps_to_fe_se_me_fs_u5o",
    ),
    ("social", "profiles-to-messages", "sl_ps_to_ms_b03"),
    (
        "social",
        "profiles-to-website-builder-module-widgets",
        "sl_ps_to_we_br_me_ws_q0l",
    ),
    ("crm", "form", "sps_cm_form"),
    ("crm", "input", "sps_cm_input"),
    ("crm", "request", "sps_cm_request"),
    ("crm", "widget", "sps_cm_widget"),
    ("crm", "forms-to-inputs", "sps_cm_fs_to_is_b7h"),
    ("crm", "forms-to-requests", "sps_cm_fs_to_rs_b42"),
    ("crm", "widgets-to-forms", "sps_cm_ws_to_fs_vf2"),
    ("billing", "currency", "sps_bg_currency"),
    ("billing", "invoice", "sps_bg_invoice"),
    ("billing", "payment-intent", "sps_bg_pt_it"),
    ("billing", "widget", "sps_bg_widget"),
    (
        "billing",
        "payment-intents-to-currencies",
        "sps_bg_pt_is_to_cs_cg0",
    ),
    (
        "billing",
        "payment-intents-to-invoices",
        "sps_bg_pt_is_to_is_lbb",
    ),
    ("notification", "notification", "sps_nn_notification"),
    ("notification", "template", "sps_nn_template"),
    ("notification", "topic", "sps_nn_topic"),
    ("notification", "widget", "sps_nn_widget"),
    (
        "notification",
        "notifications-to-templates",
        "sps_nn_ns_to_ts_g3c",
    ),
    (
        "notification",
        "topics-to-notifications",
        "sps_nn_ts_to_ns_v8d",
    ),
    ("analytic", "metric", "sps_ac_metric"),
    ("analytic", "widget", "sps_ac_widget"),
    ("startup", "widget", "sp_widget"),
    ("file-storage", "file", "sps_f_s_file"),
    ("file-storage", "widget", "sps_f_s_widget"),
    ("file-storage", "widgets-to-files", "sps_f_s_ws_to_fs_ocw"),
];

/// SPS names Stoa renamed: `(SPS key, Stoa key)`. SPS's "action" is a route permission here.
pub const RENAMED: &[(&str, &str)] = &[
    ("rbac.action", "rbac.permission"),
    ("rbac.roles-to-actions", "rbac.roles-to-permissions"),
];

/// The Stoa entity an SPS table's rows go to.
pub fn stoa_key(module: &str, name: &str) -> String {
    let key = format!("{module}.{name}");
    RENAMED
        .iter()
        .find(|(from, _)| *from == key)
        .map_or(key, |(_, to)| (*to).to_owned())
}

-- SinglePageStartup (SPS) database shape at commit 483d932c5f, as described in
-- shared/spec/DOMAIN.md section 2. Test fixture for the SPS importer.
-- Plain SQL (no psql meta-commands). gen_random_uuid() is built in since PostgreSQL 13.

-- ===== website-builder — models =====
-- website-builder button
CREATE TABLE sps_w_b_button (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    title jsonb NOT NULL DEFAULT '{}'::jsonb,
    subtitle jsonb NOT NULL DEFAULT '{}'::jsonb,
    url text,
    class_name text,
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE
);

-- website-builder buttons-array
CREATE TABLE sps_w_b_bs_ay_8m3 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    class_name text,
    title jsonb NOT NULL DEFAULT '{}'::jsonb,
    description jsonb NOT NULL DEFAULT '{}'::jsonb,
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE
);

-- website-builder feature
CREATE TABLE sps_w_b_feature (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    class_name text,
    title jsonb NOT NULL DEFAULT '{}'::jsonb,
    subtitle jsonb NOT NULL DEFAULT '{}'::jsonb,
    description jsonb NOT NULL DEFAULT '{}'::jsonb,
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE
);

-- website-builder logotype
CREATE TABLE sps_w_b_logotype (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    class_name text,
    url text,
    title jsonb NOT NULL DEFAULT '{}'::jsonb,
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE
);

-- website-builder slide
CREATE TABLE sps_w_b_slide (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    class_name text,
    url text,
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE,
    title jsonb NOT NULL DEFAULT '{}'::jsonb,
    subtitle jsonb NOT NULL DEFAULT '{}'::jsonb,
    description jsonb NOT NULL DEFAULT '{}'::jsonb
);

-- website-builder slider
CREATE TABLE sps_w_b_slider (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    class_name text,
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE,
    title jsonb NOT NULL DEFAULT '{}'::jsonb,
    subtitle jsonb NOT NULL DEFAULT '{}'::jsonb,
    description jsonb NOT NULL DEFAULT '{}'::jsonb
);

-- website-builder widget
CREATE TABLE sps_w_b_widgets (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    title jsonb NOT NULL DEFAULT '{}'::jsonb,
    subtitle jsonb NOT NULL DEFAULT '{}'::jsonb,
    description jsonb NOT NULL DEFAULT '{}'::jsonb,
    anchor text,
    class_name text,
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE
);

-- ===== host — models =====
-- host layout
CREATE TABLE sps_h_layout (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    title text,
    class_name text,
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE
);

-- host metadata
CREATE TABLE sps_h_metadata (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    title text NOT NULL,
    description text,
    keywords text,
    author text,
    viewport text,
    opengraph_title text,
    opengraph_description text,
    opengraph_url text,
    opengraph_type text,
    opengraph_site_name text,
    opengraph_locale text,
    twitter_card text,
    twitter_site text,
    twitter_creator text,
    twitter_title text,
    twitter_description text,
    twitter_url text,
    twitter_domain text,
    twitter_app_country text
);

-- host page
CREATE TABLE sps_h_page (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    title text NOT NULL DEFAULT 'Page',
    url text NOT NULL UNIQUE DEFAULT '/',
    description text DEFAULT 'Description',
    class_name text,
    language text NOT NULL DEFAULT 'en',
    admin_title text NOT NULL
);

-- host widget
CREATE TABLE sps_h_widget (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    title jsonb NOT NULL DEFAULT '{}'::jsonb,
    subtitle jsonb NOT NULL DEFAULT '{}'::jsonb,
    description jsonb NOT NULL DEFAULT '{}'::jsonb,
    class_name text,
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE
);

-- ===== blog — models =====
-- blog article
CREATE TABLE sps_blog_article (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    class_name text,
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE,
    title jsonb NOT NULL DEFAULT '{}'::jsonb,
    subtitle jsonb NOT NULL DEFAULT '{}'::jsonb,
    description jsonb NOT NULL DEFAULT '{}'::jsonb
);

-- blog category
CREATE TABLE sps_blog_category (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    class_name text,
    title jsonb NOT NULL DEFAULT '{}'::jsonb,
    subtitle jsonb NOT NULL DEFAULT '{}'::jsonb,
    description jsonb NOT NULL DEFAULT '{}'::jsonb,
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE
);

-- blog widget
CREATE TABLE sps_blog_widget (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    class_name text,
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE,
    title jsonb NOT NULL DEFAULT '{}'::jsonb,
    subtitle jsonb NOT NULL DEFAULT '{}'::jsonb,
    description jsonb NOT NULL DEFAULT '{}'::jsonb
);

-- ===== ecommerce — models =====
-- ecommerce attribute
CREATE TABLE sps_ee_attribute (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    number numeric,
    boolean boolean,
    date timestamp,
    datetime timestamp,
    string jsonb NOT NULL DEFAULT '{}'::jsonb
);

-- ecommerce attribute-key
CREATE TABLE sps_ee_ae_ky (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    type text NOT NULL DEFAULT 'feature',
    field text NOT NULL DEFAULT 'string',
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE,
    title jsonb NOT NULL DEFAULT '{}'::jsonb,
    prefix jsonb NOT NULL DEFAULT '{}'::jsonb,
    suffix jsonb NOT NULL DEFAULT '{}'::jsonb
);

-- ecommerce category
CREATE TABLE sps_ee_category (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    class_name text,
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE,
    title jsonb NOT NULL DEFAULT '{}'::jsonb,
    subtitle jsonb NOT NULL DEFAULT '{}'::jsonb,
    description jsonb NOT NULL DEFAULT '{}'::jsonb
);

-- ecommerce order
CREATE TABLE sps_ee_order (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    status text NOT NULL DEFAULT 'new',
    type text NOT NULL DEFAULT 'cart',
    receipt text NOT NULL DEFAULT '',
    comment text
);

-- ecommerce product
CREATE TABLE sps_ee_product (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    type text NOT NULL DEFAULT 'one_off',
    slug text NOT NULL UNIQUE,
    title jsonb NOT NULL DEFAULT '{}'::jsonb,
    short_description jsonb NOT NULL DEFAULT '{}'::jsonb,
    description jsonb NOT NULL DEFAULT '{}'::jsonb,
    admin_title text NOT NULL
);

-- ecommerce store
CREATE TABLE sps_ee_store (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE,
    title jsonb NOT NULL DEFAULT '{}'::jsonb,
    short_description jsonb NOT NULL DEFAULT '{}'::jsonb,
    description jsonb NOT NULL DEFAULT '{}'::jsonb
);

-- ecommerce widget
CREATE TABLE sps_ee_widget (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    class_name text,
    anchor text,
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE,
    title jsonb NOT NULL DEFAULT '{}'::jsonb,
    subtitle jsonb NOT NULL DEFAULT '{}'::jsonb,
    description jsonb NOT NULL DEFAULT '{}'::jsonb
);

-- ===== rbac — models =====
-- rbac action
CREATE TABLE sps_rc_action (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    type text NOT NULL DEFAULT 'HTTP',
    method text NOT NULL DEFAULT 'GET',
    path text NOT NULL DEFAULT '/'
);

-- rbac identity
CREATE TABLE sps_rc_identity (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    password text,
    salt text,
    account text,
    email text,
    provider text NOT NULL DEFAULT 'email',
    code text
);

-- rbac role
CREATE TABLE sps_rc_role (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    title text NOT NULL UNIQUE,
    slug text NOT NULL UNIQUE,
    available_on_registration boolean NOT NULL DEFAULT false
);

-- rbac session
CREATE TABLE sps_rc_session (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    expires_at timestamp NOT NULL,
    options text NOT NULL DEFAULT '{}'
);

-- rbac subject
CREATE TABLE sps_rc_subject (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    slug text NOT NULL UNIQUE
);

-- rbac widget
CREATE TABLE sps_rc_widget (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    class_name text,
    title jsonb NOT NULL DEFAULT '{}'::jsonb,
    subtitle jsonb NOT NULL DEFAULT '{}'::jsonb,
    description jsonb NOT NULL DEFAULT '{}'::jsonb,
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE
);

-- ===== social — models =====
-- social attribute
CREATE TABLE sl_attribute (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    number numeric,
    boolean boolean,
    date timestamp,
    datetime timestamp,
    string jsonb NOT NULL DEFAULT '{}'::jsonb
);

-- social attribute-key
CREATE TABLE sl_ae_ky (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    type text NOT NULL DEFAULT 'feature',
    field text NOT NULL DEFAULT 'string',
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE,
    title jsonb NOT NULL DEFAULT '{}'::jsonb,
    prefix jsonb NOT NULL DEFAULT '{}'::jsonb,
    suffix jsonb NOT NULL DEFAULT '{}'::jsonb
);

-- social chat
CREATE TABLE sl_chat (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    class_name text,
    title text,
    description text,
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE,
    source_system_id text
);

-- social message
CREATE TABLE sl_message (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    class_name text,
    title text,
    subtitle text,
    description text,
    source_system_id text
);

-- social profile
CREATE TABLE sl_profile (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    class_name text,
    title jsonb NOT NULL DEFAULT '{}'::jsonb,
    subtitle jsonb NOT NULL DEFAULT '{}'::jsonb,
    description jsonb NOT NULL DEFAULT '{}'::jsonb,
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE
);

-- social widget
CREATE TABLE sl_widget (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    class_name text,
    title jsonb NOT NULL DEFAULT '{}'::jsonb,
    subtitle jsonb NOT NULL DEFAULT '{}'::jsonb,
    description jsonb NOT NULL DEFAULT '{}'::jsonb,
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE
);

-- ===== crm — models =====
-- crm form
CREATE TABLE sps_cm_form (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    title jsonb NOT NULL DEFAULT '{}'::jsonb,
    subtitle jsonb NOT NULL DEFAULT '{}'::jsonb,
    description jsonb NOT NULL DEFAULT '{}'::jsonb,
    class_name text,
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE
);

-- crm input
CREATE TABLE sps_cm_input (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    type text NOT NULL DEFAULT 'default',
    is_required boolean NOT NULL DEFAULT false,
    title jsonb NOT NULL DEFAULT '{}'::jsonb,
    subtitle jsonb NOT NULL DEFAULT '{}'::jsonb,
    description jsonb NOT NULL DEFAULT '{}'::jsonb,
    class_name text,
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE,
    placeholder jsonb NOT NULL DEFAULT '{}'::jsonb,
    label jsonb NOT NULL DEFAULT '{}'::jsonb
);

-- crm request
CREATE TABLE sps_cm_request (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    payload jsonb NOT NULL DEFAULT '{}'::jsonb
);

-- crm widget
CREATE TABLE sps_cm_widget (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    title jsonb NOT NULL DEFAULT '{}'::jsonb,
    subtitle jsonb NOT NULL DEFAULT '{}'::jsonb,
    description jsonb NOT NULL DEFAULT '{}'::jsonb,
    class_name text,
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE
);

-- ===== billing — models =====
-- billing currency
CREATE TABLE sps_bg_currency (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    is_default boolean NOT NULL DEFAULT false,
    symbol text NOT NULL,
    title text NOT NULL,
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE
);

-- billing invoice
CREATE TABLE sps_bg_invoice (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    status text NOT NULL DEFAULT 'draft',
    payment_url text NOT NULL DEFAULT '',
    success_url text NOT NULL DEFAULT '',
    cancel_url text NOT NULL DEFAULT '',
    amount integer NOT NULL DEFAULT 0,
    provider_id text,
    provider text DEFAULT 'stripe'
);

-- billing payment-intent
CREATE TABLE sps_bg_pt_it (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    amount integer NOT NULL DEFAULT 0,
    status text NOT NULL DEFAULT 'requires_payment_method',
    interval text,
    type text NOT NULL DEFAULT 'one_off'
);

-- billing widget
CREATE TABLE sps_bg_widget (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    title jsonb NOT NULL DEFAULT '{}'::jsonb,
    subtitle jsonb NOT NULL DEFAULT '{}'::jsonb,
    description jsonb NOT NULL DEFAULT '{}'::jsonb,
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE
);

-- ===== notification — models =====
-- notification notification
CREATE TABLE sps_nn_notification (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    status text NOT NULL DEFAULT 'new',
    method text NOT NULL DEFAULT 'email',
    title text,
    data text,
    reciever text NOT NULL,
    attachments text,
    send_after timestamp NOT NULL DEFAULT now()
);

-- notification template
CREATE TABLE sps_nn_template (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    title text,
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE
);

-- notification topic
CREATE TABLE sps_nn_topic (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    title text NOT NULL,
    type text NOT NULL DEFAULT 'info',
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE
);

-- notification widget
CREATE TABLE sps_nn_widget (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    title jsonb NOT NULL DEFAULT '{}'::jsonb,
    subtitle jsonb NOT NULL DEFAULT '{}'::jsonb,
    description jsonb NOT NULL DEFAULT '{}'::jsonb,
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE
);

-- ===== analytic — models =====
-- analytic metric
CREATE TABLE sps_ac_metric (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    title text NOT NULL,
    value integer NOT NULL
);

-- analytic widget
CREATE TABLE sps_ac_widget (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    title jsonb NOT NULL DEFAULT '{}'::jsonb,
    subtitle jsonb NOT NULL DEFAULT '{}'::jsonb,
    description jsonb NOT NULL DEFAULT '{}'::jsonb,
    class_name text,
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE
);

-- ===== startup — models =====
-- startup widget
CREATE TABLE sp_widget (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    class_name text,
    title jsonb NOT NULL DEFAULT '{}'::jsonb,
    subtitle jsonb NOT NULL DEFAULT '{}'::jsonb,
    description jsonb NOT NULL DEFAULT '{}'::jsonb,
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE
);

-- ===== file-storage — models =====
-- file-storage file
CREATE TABLE sps_f_s_file (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    file text NOT NULL,
    container_class_name text,
    class_name text,
    admin_title text NOT NULL,
    width integer,
    height integer,
    alt text,
    size integer,
    extension text,
    mime_type text
);

-- file-storage widget
CREATE TABLE sps_f_s_widget (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text DEFAULT 'default',
    title jsonb NOT NULL DEFAULT '{}'::jsonb,
    subtitle jsonb NOT NULL DEFAULT '{}'::jsonb,
    description jsonb NOT NULL DEFAULT '{}'::jsonb,
    admin_title text NOT NULL,
    slug text NOT NULL UNIQUE
);

-- ===== website-builder — relations =====
-- website-builder buttons-arrays-to-buttons
CREATE TABLE sps_w_b_bs_as_to_bs_i0l (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    by_id uuid NOT NULL REFERENCES sps_w_b_bs_ay_8m3(id) ON DELETE CASCADE,
    bn_id uuid NOT NULL REFERENCES sps_w_b_button(id) ON DELETE CASCADE
);

-- website-builder buttons-to-file-storage-module-files
CREATE TABLE sps_w_b_bs_to_fe_se_me_fs_m3s (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    bn_id uuid NOT NULL REFERENCES sps_w_b_button(id) ON DELETE CASCADE,
    fe_se_me_fe_id uuid NOT NULL REFERENCES sps_f_s_file(id) ON DELETE CASCADE
);

-- website-builder features-to-buttons-arrays
CREATE TABLE sps_w_b_fe_to_bs_as_mc2 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    fe_id uuid NOT NULL REFERENCES sps_w_b_feature(id) ON DELETE CASCADE,
    by_id uuid NOT NULL REFERENCES sps_w_b_bs_ay_8m3(id) ON DELETE CASCADE
);

-- website-builder features-to-file-storage-module-files
CREATE TABLE sps_w_b_fs_to_fe_se_me_fs_idk (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    fe_id uuid NOT NULL REFERENCES sps_w_b_feature(id) ON DELETE CASCADE,
    fe_se_me_fe_id uuid NOT NULL REFERENCES sps_f_s_file(id) ON DELETE CASCADE
);

-- website-builder logotypes-to-file-storage-module-files
CREATE TABLE sps_w_b_ls_to_fe_se_me_fs_uas (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    le_id uuid NOT NULL REFERENCES sps_w_b_logotype(id) ON DELETE CASCADE,
    fe_se_me_fe_id uuid NOT NULL REFERENCES sps_f_s_file(id) ON DELETE CASCADE
);

-- website-builder sliders-to-slides
CREATE TABLE sps_w_b_ss_to_ss (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    sr_id uuid NOT NULL REFERENCES sps_w_b_slider(id) ON DELETE CASCADE,
    se_id uuid NOT NULL REFERENCES sps_w_b_slide(id) ON DELETE CASCADE
);

-- website-builder slides-to-buttons-arrays
CREATE TABLE sps_w_b_ss_to_bs_as_mot (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    se_id uuid NOT NULL REFERENCES sps_w_b_slide(id) ON DELETE CASCADE,
    by_id uuid NOT NULL REFERENCES sps_w_b_bs_ay_8m3(id) ON DELETE CASCADE
);

-- website-builder slides-to-file-storage-module-files
CREATE TABLE sps_w_b_ss_to_fe_se_me_fs_ekr (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    se_id uuid NOT NULL REFERENCES sps_w_b_slide(id) ON DELETE CASCADE,
    fe_se_me_fe_id uuid NOT NULL REFERENCES sps_f_s_file(id) ON DELETE CASCADE
);

-- website-builder widgets-to-buttons-arrays
CREATE TABLE sps_w_b_ws_to_bs_as_pmd (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    wt_id uuid NOT NULL REFERENCES sps_w_b_widgets(id) ON DELETE CASCADE,
    by_id uuid NOT NULL REFERENCES sps_w_b_bs_ay_8m3(id) ON DELETE CASCADE
);

-- website-builder widgets-to-features
CREATE TABLE sps_w_b_ws_to_fs_c2d (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    wt_id uuid NOT NULL REFERENCES sps_w_b_widgets(id) ON DELETE CASCADE,
    fe_id uuid NOT NULL REFERENCES sps_w_b_feature(id) ON DELETE CASCADE
);

-- website-builder widgets-to-file-storage-module-files
CREATE TABLE sps_w_b_ws_to_fe_se_me_fs_abs (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    wt_id uuid NOT NULL REFERENCES sps_w_b_widgets(id) ON DELETE CASCADE,
    fe_se_me_fe_id uuid NOT NULL REFERENCES sps_f_s_file(id) ON DELETE CASCADE
);

-- website-builder widgets-to-logotypes
CREATE TABLE sps_w_b_ws_to_ls_pbd (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    wt_id uuid NOT NULL REFERENCES sps_w_b_widgets(id) ON DELETE CASCADE,
    le_id uuid NOT NULL REFERENCES sps_w_b_logotype(id) ON DELETE CASCADE
);

-- website-builder widgets-to-sliders
CREATE TABLE sps_w_b_ws_to_ss_dc4 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    wt_id uuid NOT NULL REFERENCES sps_w_b_widgets(id) ON DELETE CASCADE,
    sr_id uuid NOT NULL REFERENCES sps_w_b_slider(id) ON DELETE CASCADE
);

-- ===== host — relations =====
-- host layouts-to-widgets
CREATE TABLE sps_h_ls_to_ws_v2d (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    lt_id uuid NOT NULL REFERENCES sps_h_layout(id) ON DELETE CASCADE,
    wt_id uuid NOT NULL REFERENCES sps_h_widget(id) ON DELETE CASCADE
);

-- host pages-to-layouts
CREATE TABLE sps_h_ps_to_ls_gxd (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    pe_id uuid NOT NULL REFERENCES sps_h_page(id) ON DELETE CASCADE,
    lt_id uuid NOT NULL REFERENCES sps_h_layout(id) ON DELETE CASCADE
);

-- host pages-to-metadata
CREATE TABLE sps_h_ps_to_ma_4m4 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    pe_id uuid NOT NULL REFERENCES sps_h_page(id) ON DELETE CASCADE,
    ma_id uuid NOT NULL REFERENCES sps_h_metadata(id) ON DELETE CASCADE
);

-- host pages-to-widgets
CREATE TABLE sps_h_ps_to_ws_xyv (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    pe_id uuid NOT NULL REFERENCES sps_h_page(id) ON DELETE CASCADE,
    wt_id uuid NOT NULL REFERENCES sps_h_widget(id) ON DELETE CASCADE
);

-- host widgets-to-external-widgets
CREATE TABLE sps_h_ws_to_el_ws_1g0 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    wt_id uuid NOT NULL REFERENCES sps_h_widget(id) ON DELETE CASCADE,
    external_module text NOT NULL DEFAULT 'website-builder',
    external_widget_id text NOT NULL
);

-- ===== blog — relations =====
-- blog articles-to-ecommerce-module-products
CREATE TABLE bg_as_to_ee_me_ps_bd9 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    ae_id uuid NOT NULL REFERENCES sps_blog_article(id) ON DELETE CASCADE,
    ee_me_pt_id uuid NOT NULL REFERENCES sps_ee_product(id) ON DELETE CASCADE
);

-- blog articles-to-file-storage-module-files
CREATE TABLE sps_blog_as_to_fe_se_me_fs_d24 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    ae_id uuid NOT NULL REFERENCES sps_blog_article(id) ON DELETE CASCADE,
    fe_se_me_fe_id uuid NOT NULL REFERENCES sps_f_s_file(id) ON DELETE CASCADE
);

-- blog articles-to-website-builder-module-widgets
CREATE TABLE sps_blog_as_to_we_br_me_wt_v5b (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    ae_id uuid NOT NULL REFERENCES sps_blog_article(id) ON DELETE CASCADE,
    we_br_me_wt_id uuid NOT NULL REFERENCES sps_w_b_widgets(id) ON DELETE CASCADE
);

-- blog categories-to-articles
CREATE TABLE sps_blog_cs_to_as_d3r (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    cy_id uuid NOT NULL REFERENCES sps_blog_category(id) ON DELETE CASCADE,
    ae_id uuid NOT NULL REFERENCES sps_blog_article(id) ON DELETE CASCADE
);

-- blog categories-to-website-builder-module-widgets
CREATE TABLE sps_blog_cs_to_we_br_me_wt_7d2 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    cy_id uuid NOT NULL REFERENCES sps_blog_category(id) ON DELETE CASCADE,
    we_br_me_wt_id uuid NOT NULL REFERENCES sps_w_b_widgets(id) ON DELETE CASCADE
);

-- blog widgets-to-articles
CREATE TABLE bg_ws_to_as_y18 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    wt_id uuid NOT NULL REFERENCES sps_blog_widget(id) ON DELETE CASCADE,
    ae_id uuid NOT NULL REFERENCES sps_blog_article(id) ON DELETE CASCADE
);

-- blog widgets-to-categories
CREATE TABLE bg_ws_to_cs_b03 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    wt_id uuid NOT NULL REFERENCES sps_blog_widget(id) ON DELETE CASCADE,
    cy_id uuid NOT NULL REFERENCES sps_blog_category(id) ON DELETE CASCADE
);

-- ===== ecommerce — relations =====
-- ecommerce attribute-keys-to-attributes
CREATE TABLE sps_ee_ae_ks_to_as_v3g (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    ae_ky_id uuid NOT NULL REFERENCES sps_ee_ae_ky(id) ON DELETE CASCADE,
    ae_id uuid NOT NULL REFERENCES sps_ee_attribute(id) ON DELETE CASCADE
);

-- ecommerce attributes-to-billing-module-currencies
CREATE TABLE sps_ee_as_to_bg_me_cs_6bg (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    ae_id uuid NOT NULL REFERENCES sps_ee_attribute(id) ON DELETE CASCADE,
    bg_me_cy_id uuid NOT NULL REFERENCES sps_bg_currency(id) ON DELETE CASCADE
);

-- ecommerce categories-to-file-storage-module-files
CREATE TABLE sps_ee_cs_to_fe_se_me_fs_vr3 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    cy_id uuid NOT NULL REFERENCES sps_ee_category(id) ON DELETE CASCADE,
    fe_se_me_fe_id uuid NOT NULL REFERENCES sps_f_s_file(id) ON DELETE CASCADE
);

-- ecommerce categories-to-products
CREATE TABLE sps_ee_cs_to_ps_d4v (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    cy_id uuid NOT NULL REFERENCES sps_ee_category(id) ON DELETE CASCADE,
    pt_id uuid NOT NULL REFERENCES sps_ee_product(id) ON DELETE CASCADE
);

-- ecommerce orders-to-billing-module-currencies
CREATE TABLE sps_ee_os_to_bg_me_cs_b33 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    quantity integer NOT NULL DEFAULT 1,
    or_id uuid NOT NULL REFERENCES sps_ee_order(id) ON DELETE CASCADE,
    bg_me_cy_id uuid NOT NULL REFERENCES sps_bg_currency(id) ON DELETE CASCADE
);

-- ecommerce orders-to-billing-module-payment-intents
CREATE TABLE sps_ee_os_to_bg_me_pt_is_cvb (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    or_id uuid NOT NULL REFERENCES sps_ee_order(id) ON DELETE CASCADE,
    bg_me_pt_it_id uuid NOT NULL REFERENCES sps_bg_pt_it(id) ON DELETE CASCADE
);

-- ecommerce orders-to-file-storage-module-files
CREATE TABLE sps_ee_os_to_fe_se_me_fs_b06 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    or_id uuid NOT NULL REFERENCES sps_ee_order(id) ON DELETE CASCADE,
    fe_se_me_fe_id uuid NOT NULL REFERENCES sps_f_s_file(id) ON DELETE CASCADE
);

-- ecommerce orders-to-products
CREATE TABLE sps_ee_os_to_ps_d4c (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    quantity integer NOT NULL DEFAULT 1,
    or_id uuid NOT NULL REFERENCES sps_ee_order(id) ON DELETE CASCADE,
    pt_id uuid NOT NULL REFERENCES sps_ee_product(id) ON DELETE CASCADE
);

-- ecommerce orders-to-social-module-chats
CREATE TABLE sps_ee_os_to_sl_me_cs_lg2 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    or_id uuid NOT NULL REFERENCES sps_ee_order(id) ON DELETE CASCADE,
    sl_me_ct_id uuid NOT NULL REFERENCES sl_chat(id) ON DELETE CASCADE
);

-- ecommerce products-to-attributes
CREATE TABLE sps_ee_ps_to_as_c2s (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    pt_id uuid NOT NULL REFERENCES sps_ee_product(id) ON DELETE CASCADE,
    ae_id uuid NOT NULL REFERENCES sps_ee_attribute(id) ON DELETE CASCADE
);

-- ecommerce products-to-file-storage-module-files
CREATE TABLE sps_ee_ps_to_fe_se_me_fs_3cv (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    pt_id uuid NOT NULL REFERENCES sps_ee_product(id) ON DELETE CASCADE,
    fe_se_me_fe_id uuid NOT NULL REFERENCES sps_f_s_file(id) ON DELETE CASCADE
);

-- ecommerce products-to-website-builder-module-widgets
CREATE TABLE sps_ee_ps_to_we_br_me_ws_v3w (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    pt_id uuid NOT NULL REFERENCES sps_ee_product(id) ON DELETE CASCADE,
    wt_br_me_wt_id uuid NOT NULL REFERENCES sps_w_b_widgets(id) ON DELETE CASCADE
);

-- ecommerce stores-to-attributes
CREATE TABLE sps_ee_ss_to_as_cv3 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    se_id uuid NOT NULL REFERENCES sps_ee_store(id) ON DELETE CASCADE,
    ae_id uuid NOT NULL REFERENCES sps_ee_attribute(id) ON DELETE CASCADE
);

-- ecommerce stores-to-orders
CREATE TABLE sps_ee_ss_to_os_v03 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    se_id uuid NOT NULL REFERENCES sps_ee_store(id) ON DELETE CASCADE,
    or_id uuid NOT NULL REFERENCES sps_ee_order(id) ON DELETE CASCADE
);

-- ecommerce stores-to-products
CREATE TABLE sps_ee_ss_to_ps_vn7 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    sku text NOT NULL UNIQUE,
    se_id uuid NOT NULL REFERENCES sps_ee_store(id) ON DELETE CASCADE,
    pt_id uuid NOT NULL REFERENCES sps_ee_product(id) ON DELETE CASCADE
);

-- ecommerce stores-to-products-to-attributes
CREATE TABLE sps_ee_ss_to_ps_to_as_v04 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    ss_to_ps_id uuid NOT NULL REFERENCES sps_ee_ss_to_ps_vn7(id) ON DELETE CASCADE,
    ae_id uuid NOT NULL REFERENCES sps_ee_attribute(id) ON DELETE CASCADE
);

-- ecommerce widgets-to-categories
CREATE TABLE sps_ee_ws_to_cs_cv3 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    wt_id uuid NOT NULL REFERENCES sps_ee_widget(id) ON DELETE CASCADE,
    cy_id uuid NOT NULL REFERENCES sps_ee_category(id) ON DELETE CASCADE
);

-- ecommerce widgets-to-products
CREATE TABLE sps_ee_ws_to_ps_b04 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    wt_id uuid NOT NULL REFERENCES sps_ee_widget(id) ON DELETE CASCADE,
    pt_id uuid NOT NULL REFERENCES sps_ee_product(id) ON DELETE CASCADE
);

-- ecommerce widgets-to-stores
CREATE TABLE sps_ee_ws_to_ss_cv3 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    wt_id uuid NOT NULL REFERENCES sps_ee_widget(id) ON DELETE CASCADE,
    se_id uuid NOT NULL REFERENCES sps_ee_store(id) ON DELETE CASCADE
);

-- ===== rbac — relations =====
-- rbac roles-to-actions
CREATE TABLE sps_rc_rs_to_as_mz2 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    re_id uuid NOT NULL REFERENCES sps_rc_role(id) ON DELETE CASCADE,
    an_id uuid NOT NULL REFERENCES sps_rc_action(id) ON DELETE CASCADE,
    condition text
);

-- rbac roles-to-ecommerce-module-products
CREATE TABLE sps_rc_rs_to_ee_me_ps_cv3 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    re_id uuid NOT NULL REFERENCES sps_rc_role(id) ON DELETE CASCADE,
    ee_me_pt_id uuid NOT NULL
);

-- rbac subjects-to-billing-module-payment-intents
CREATE TABLE sps_rc_ss_to_bg_me_pt_is_fv3 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    st_id uuid NOT NULL REFERENCES sps_rc_subject(id) ON DELETE CASCADE,
    bg_me_pt_it_id uuid NOT NULL
);

-- rbac subjects-to-blog-module-articles
CREATE TABLE sps_rc_ss_to_bg_me_as_b03 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    st_id uuid NOT NULL REFERENCES sps_rc_subject(id) ON DELETE CASCADE,
    bg_me_ae_id uuid NOT NULL REFERENCES sps_blog_article(id) ON DELETE CASCADE
);

-- rbac subjects-to-ecommerce-module-orders
CREATE TABLE sps_rc_ss_to_ee_me_os_oq2 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    st_id uuid NOT NULL REFERENCES sps_rc_subject(id) ON DELETE CASCADE,
    ee_me_or_id uuid NOT NULL REFERENCES sps_ee_order(id) ON DELETE CASCADE
);

-- rbac subjects-to-ecommerce-module-products
CREATE TABLE rc_ss_to_ee_me_ps_whq (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    st_id uuid NOT NULL REFERENCES sps_rc_subject(id) ON DELETE CASCADE,
    ee_me_pt_id uuid NOT NULL REFERENCES sps_ee_product(id) ON DELETE CASCADE
);

-- rbac subjects-to-identities
CREATE TABLE sps_rc_ss_to_is_h58 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    st_id uuid NOT NULL REFERENCES sps_rc_subject(id) ON DELETE CASCADE,
    iy_id uuid NOT NULL REFERENCES sps_rc_identity(id) ON DELETE CASCADE
);

-- rbac subjects-to-notification-module-topics
CREATE TABLE sps_rc_ss_to_nn_me_ts_cfg (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    st_id uuid NOT NULL REFERENCES sps_rc_subject(id) ON DELETE CASCADE,
    nn_me_tc_id uuid NOT NULL
);

-- rbac subjects-to-roles
CREATE TABLE sps_rc_ss_to_rs_3nw (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    st_id uuid NOT NULL REFERENCES sps_rc_subject(id) ON DELETE CASCADE,
    re_id uuid NOT NULL REFERENCES sps_rc_role(id) ON DELETE CASCADE
);

-- rbac subjects-to-sessions
CREATE TABLE sps_rc_ss_to_ss_1eh (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    st_id uuid NOT NULL REFERENCES sps_rc_subject(id) ON DELETE CASCADE,
    sn_id uuid NOT NULL REFERENCES sps_rc_session(id) ON DELETE CASCADE
);

-- rbac subjects-to-social-module-profiles
CREATE TABLE rc_ss_to_sl_me_ps_ges (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    st_id uuid NOT NULL REFERENCES sps_rc_subject(id) ON DELETE CASCADE,
    sl_me_pe_id uuid NOT NULL REFERENCES sl_profile(id) ON DELETE CASCADE
);

-- ===== social — relations =====
-- social attribute-keys-to-attributes
CREATE TABLE sl_ae_ks_to_as_b02 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    ae_ky_id uuid NOT NULL REFERENCES sl_ae_ky(id) ON DELETE CASCADE,
    ae_id uuid NOT NULL REFERENCES sl_attribute(id) ON DELETE CASCADE
);

-- social chats-to-messages
CREATE TABLE sl_cs_to_ms_e6r (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    ct_id uuid NOT NULL REFERENCES sl_chat(id) ON DELETE CASCADE,
    me_id uuid NOT NULL REFERENCES sl_message(id) ON DELETE CASCADE
);

-- social messages-to-file-storage-module-files
CREATE TABLE sl_ms_to_fe_se_me_fs_3v0 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    me_id uuid NOT NULL REFERENCES sl_message(id) ON DELETE CASCADE,
    fe_se_me_fe_id uuid NOT NULL REFERENCES sps_f_s_file(id) ON DELETE CASCADE
);

-- social profiles-to-attributes
CREATE TABLE sl_ps_to_as_v06 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    pe_id uuid NOT NULL REFERENCES sl_profile(id) ON DELETE CASCADE,
    ae_id uuid NOT NULL REFERENCES sl_attribute(id) ON DELETE CASCADE
);

-- social profiles-to-chats
CREATE TABLE sl_ps_to_cs_m2s (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    pe_id uuid NOT NULL REFERENCES sl_profile(id) ON DELETE CASCADE,
    ct_id uuid NOT NULL REFERENCES sl_chat(id) ON DELETE CASCADE
);

-- social profiles-to-ecommerce-module-products
CREATE TABLE sl_pe_to_ee_me_ps_4b2 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    pe_id uuid NOT NULL REFERENCES sl_profile(id) ON DELETE CASCADE,
    ee_me_pt_id uuid NOT NULL REFERENCES sps_ee_product(id) ON DELETE CASCADE
);

-- social profiles-to-file-storage-module-files
CREATE TABLE sl_ps_to_fe_se_me_fs_u5o (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    pe_id uuid NOT NULL REFERENCES sl_profile(id) ON DELETE CASCADE,
    fe_se_me_fe_id uuid NOT NULL REFERENCES sps_f_s_file(id) ON DELETE CASCADE
);

-- social profiles-to-messages
CREATE TABLE sl_ps_to_ms_b03 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    pe_id uuid NOT NULL REFERENCES sl_profile(id) ON DELETE CASCADE,
    me_id uuid NOT NULL REFERENCES sl_message(id) ON DELETE CASCADE,
    is_read boolean NOT NULL DEFAULT false
);

-- social profiles-to-website-builder-module-widgets
CREATE TABLE sl_ps_to_we_br_me_ws_q0l (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    pe_id uuid NOT NULL REFERENCES sl_profile(id) ON DELETE CASCADE,
    we_br_me_wt_id uuid NOT NULL REFERENCES sps_w_b_widgets(id) ON DELETE CASCADE
);

-- ===== crm — relations =====
-- crm forms-to-inputs
CREATE TABLE sps_cm_fs_to_is_b7h (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    it_id uuid NOT NULL REFERENCES sps_cm_input(id) ON DELETE CASCADE,
    fm_id uuid NOT NULL REFERENCES sps_cm_form(id) ON DELETE CASCADE
);

-- crm forms-to-requests
CREATE TABLE sps_cm_fs_to_rs_b42 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    fm_id uuid NOT NULL REFERENCES sps_cm_form(id) ON DELETE CASCADE,
    rt_id uuid NOT NULL REFERENCES sps_cm_request(id) ON DELETE CASCADE
);

-- crm widgets-to-forms
CREATE TABLE sps_cm_ws_to_fs_vf2 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    wt_id uuid NOT NULL REFERENCES sps_cm_widget(id) ON DELETE CASCADE,
    fm_id uuid NOT NULL REFERENCES sps_cm_form(id) ON DELETE CASCADE
);

-- ===== billing — relations =====
-- billing payment-intents-to-currencies
CREATE TABLE sps_bg_pt_is_to_cs_cg0 (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    pt_it_id uuid NOT NULL REFERENCES sps_bg_pt_it(id) ON DELETE CASCADE,
    cy_id uuid NOT NULL REFERENCES sps_bg_currency(id) ON DELETE CASCADE
);

-- billing payment-intents-to-invoices
CREATE TABLE sps_bg_pt_is_to_is_lbb (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    pt_it_id uuid NOT NULL REFERENCES sps_bg_pt_it(id) ON DELETE CASCADE,
    ie_id uuid NOT NULL REFERENCES sps_bg_invoice(id) ON DELETE CASCADE
);

-- ===== notification — relations =====
-- notification notifications-to-templates
CREATE TABLE sps_nn_ns_to_ts_g3c (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    nn_id uuid NOT NULL REFERENCES sps_nn_notification(id) ON DELETE CASCADE,
    te_id uuid NOT NULL REFERENCES sps_nn_template(id) ON DELETE CASCADE
);

-- notification topics-to-notifications
CREATE TABLE sps_nn_ts_to_ns_v8d (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    tc_id uuid NOT NULL REFERENCES sps_nn_topic(id) ON DELETE CASCADE,
    nn_id uuid NOT NULL REFERENCES sps_nn_notification(id) ON DELETE CASCADE
);

-- ===== file-storage — relations =====
-- file-storage widgets-to-files
CREATE TABLE sps_f_s_ws_to_fs_ocw (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now(),
    variant text NOT NULL DEFAULT 'default',
    order_index integer NOT NULL DEFAULT 0,
    class_name text,
    wt_id uuid NOT NULL REFERENCES sps_f_s_widget(id) ON DELETE CASCADE,
    fe_id uuid NOT NULL REFERENCES sps_f_s_file(id) ON DELETE CASCADE
);

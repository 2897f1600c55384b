-- Demo content for the SPS importer fixture: a small 'For Planet' site.
-- Load after schema.sql. Plain SQL, no psql meta-commands.
-- Ids are fixed: 00000000-0000-4000-8000-TTT000000NNN, TTT = table number in schema.sql
-- order (001..122), NNN = row number in that table.
-- Identity passwords: bcrypt ($2a$, cost 10) of 'old-sps-password-1'.
SET client_encoding = 'UTF8';

-- website-builder button (model)
INSERT INTO sps_w_b_button (id, created_at, updated_at, variant, title, url, admin_title, slug, subtitle, class_name) VALUES
    ('00000000-0000-4000-8000-001000000001', '2024-02-05 09:00:00', '2024-02-06 12:00:00', 'link', '{"en": "Home", "ru": "Главная"}', '/', 'Navbar home', 'navbar-home', DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-001000000002', '2024-02-07 01:07:13', '2024-02-09 04:08:13', 'ghost', '{"en": "Blog", "ru": "Блог"}', '/blog', 'Navbar blog', 'navbar-blog', DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-001000000003', '2024-02-08 17:14:26', '2024-02-11 20:16:26', 'primary', '{"en": "Plant a tree", "ru": "Посадить дерево"}', '/ecommerce/products/plant-a-tree', 'Plant a tree', 'plant-a-tree-button', '{"en": "590 ₽ per tree", "ru": "590 ₽ за дерево"}', 'w-full md:w-fit'),
    ('00000000-0000-4000-8000-001000000004', '2024-02-10 09:21:39', '2024-02-14 12:24:39', 'outline', '{"en": "Read our stories", "ru": "Читать истории"}', '/blog', 'Read our stories', 'read-our-stories', DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-001000000005', '2024-02-12 01:28:52', '2024-02-17 04:32:52', 'secondary', '{"en": "Telegram", "ru": "Телеграм"}', 'https://t.me/forplanet', 'Telegram channel', 'telegram-channel', DEFAULT, DEFAULT);

-- website-builder buttons-array (model)
INSERT INTO sps_w_b_bs_ay_8m3 (id, created_at, updated_at, title, admin_title, slug, class_name, description, variant) VALUES
    ('00000000-0000-4000-8000-002000000001', '2024-02-13 17:35:05', '2024-02-19 20:40:05', '{"en": "Main menu", "ru": "Главное меню"}', 'Navbar links', 'navbar-links', 'flex gap-4', DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-002000000002', '2024-02-15 09:42:18', '2024-02-22 12:48:18', '{"en": "Hero actions", "ru": "Действия на главном экране"}', 'Hero actions', 'hero-actions', DEFAULT, '{"en": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Two ways to help the forest.\"}]}]}", "ru": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Два способа помочь лесу.\"}]}]}"}', DEFAULT),
    ('00000000-0000-4000-8000-002000000003', '2024-02-17 01:49:31', '2024-02-25 04:56:31', '{"en": "Follow us", "ru": "Мы в соцсетях"}', 'Footer links', 'footer-links', DEFAULT, DEFAULT, 'default');

-- website-builder feature (model)
INSERT INTO sps_w_b_feature (id, created_at, updated_at, title, subtitle, description, admin_title, slug, class_name) VALUES
    ('00000000-0000-4000-8000-003000000001', '2024-02-18 17:56:44', '2024-02-27 21:04:44', '{"en": "Clean air", "ru": "Чистый воздух"}', '{"en": "One oak, many breaths", "ru": "Один дуб — много вдохов"}', '{"en": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"A grown oak gives oxygen for a family of four.\"}]}]}", "ru": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Взрослый дуб даёт кислород для семьи из четырёх человек.\"}]}]}"}', 'Clean air', 'clean-air', DEFAULT),
    ('00000000-0000-4000-8000-003000000002', '2024-02-20 09:03:57', '2024-02-21 12:12:57', '{"en": "Living soil", "ru": "Живая почва"}', '{"en": "Roots keep the ground together", "ru": "Корни удерживают землю"}', '{"en": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Forests stop erosion and keep water in the ground.\"}]}]}", "ru": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Леса останавливают эрозию и сохраняют воду в почве.\"}]}]}"}', 'Living soil', 'living-soil', 'bg-amber-50');

-- website-builder logotype (model)
INSERT INTO sps_w_b_logotype (id, created_at, updated_at, title, url, admin_title, slug) VALUES
    ('00000000-0000-4000-8000-004000000001', '2024-02-22 01:10:10', '2024-02-24 04:20:10', '{"en": "For Planet", "ru": "Для планеты"}', '/', 'For Planet logotype', 'for-planet-logotype');

-- website-builder slide (model)
INSERT INTO sps_w_b_slide (id, created_at, updated_at, title, subtitle, description, url, admin_title, slug, class_name) VALUES
    ('00000000-0000-4000-8000-005000000001', '2024-02-23 17:17:23', '2024-02-26 20:28:23', '{"en": "Spring planting", "ru": "Весенняя посадка"}', '{"en": "April 2025, Tver region", "ru": "Апрель 2025, Тверская область"}', '{"en": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"We planted 1,200 oaks in one weekend.\"}]}]}", "ru": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"За одни выходные мы посадили 1200 дубов.\"}]}]}"}', '/blog/spring-planting-report', 'Spring planting', 'spring-planting-slide', DEFAULT),
    ('00000000-0000-4000-8000-005000000002', '2024-02-25 09:24:36', '2024-02-29 12:36:36', '{"en": "Autumn seedlings", "ru": "Осенние саженцы"}', DEFAULT, '{"en": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Seedlings wait in the nursery for the first frost.\"}]}]}", "ru": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Саженцы ждут в питомнике первых заморозков.\"}]}]}"}', DEFAULT, 'Autumn seedlings', 'autumn-seedlings-slide', 'text-white');

-- website-builder slider (model)
INSERT INTO sps_w_b_slider (id, created_at, updated_at, title, description, admin_title, slug) VALUES
    ('00000000-0000-4000-8000-006000000001', '2024-02-27 01:31:49', '2024-03-03 04:44:49', '{"en": "Our seasons", "ru": "Наши сезоны"}', '{"en": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Planting happens twice a year.\"}]}]}", "ru": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Посадка проходит дважды в год.\"}]}]}"}', 'Seasons slider', 'seasons-slider');

-- website-builder widget (model)
INSERT INTO sps_w_b_widgets (id, created_at, updated_at, variant, title, admin_title, slug, class_name, description, subtitle, anchor) VALUES
    ('00000000-0000-4000-8000-007000000001', '2024-02-28 17:38:02', '2024-03-05 20:52:02', 'navbar-default', '{"en": "For Planet", "ru": "Для планеты"}', 'Navbar', 'navbar', 'sticky top-0', DEFAULT, DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-007000000002', '2024-03-01 09:45:15', '2024-03-08 13:00:15', 'footer-default', '{"en": "For Planet © 2025", "ru": "Для планеты © 2025"}', 'Footer', 'footer', DEFAULT, '{"en": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"We plant trees where forests burned.\"}]}]}", "ru": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Мы сажаем деревья там, где горели леса.\"}]}]}"}', DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-007000000003', '2024-03-03 01:52:28', '2024-03-11 05:08:28', 'content-default', '{"en": "Trees for the planet", "ru": "Деревья для планеты"}', 'Home hero', 'home-hero', DEFAULT, '{"en": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Every tree you buy is planted by our volunteers.\"}]},{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"You get a photo and the GPS point of your tree.\"}]}]}", "ru": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Каждое купленное дерево сажают наши волонтёры.\"}]},{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Вы получите фотографию и GPS-точку своего дерева.\"}]}]}"}', '{"en": "Plant a tree in two clicks", "ru": "Посадите дерево в два клика"}', 'hero'),
    ('00000000-0000-4000-8000-007000000004', '2024-03-04 17:59:41', '2024-03-13 21:16:41', 'content-default', '{"en": "Why trees", "ru": "Почему деревья"}', 'Why trees', 'why-trees', 'py-16', DEFAULT, DEFAULT, 'why-trees');

-- host layout (model)
INSERT INTO sps_h_layout (id, created_at, updated_at, title, admin_title, slug) VALUES
    ('00000000-0000-4000-8000-008000000001', '2024-03-06 09:06:54', '2024-03-07 12:24:54', 'Main layout', 'Main layout', 'main-layout');

-- host metadata (model)
INSERT INTO sps_h_metadata (id, created_at, updated_at, title, description, keywords, author, viewport, opengraph_title, opengraph_description, opengraph_url, opengraph_type, opengraph_site_name, opengraph_locale, twitter_card, twitter_site, twitter_creator, twitter_title, twitter_description, twitter_url, twitter_domain, twitter_app_country, variant) VALUES
    ('00000000-0000-4000-8000-009000000001', '2024-03-08 01:13:07', '2024-03-10 04:32:07', 'Trees for the planet — home', 'Plant a tree in two clicks and get its photo.', 'trees, forest, planting, ecology', 'For Planet', 'width=device-width, initial-scale=1', 'Trees for the planet', 'Plant a tree in two clicks.', 'https://forplanet.example.com/', 'website', 'For Planet', 'en_US', 'summary_large_image', '@forplanet', '@forplanet', 'Trees for the planet', 'Plant a tree in two clicks.', 'https://forplanet.example.com/', 'forplanet.example.com', 'RU', DEFAULT),
    ('00000000-0000-4000-8000-009000000002', '2024-03-09 17:20:20', '2024-03-12 20:40:20', 'Trees for the planet — blog', 'Stories from our planting days.', 'blog, forest', DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-009000000003', '2024-03-11 09:27:33', '2024-03-15 12:48:33', 'Trees for the planet — article', 'An article from the For Planet blog.', DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-009000000004', '2024-03-13 01:34:46', '2024-03-18 04:56:46', 'For Planet — plant a tree', 'Site-wide default metadata (SPS reads the row with variant primary).', DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, 'For Planet', DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, 'primary');

-- host page (model)
INSERT INTO sps_h_page (id, created_at, updated_at, title, url, language, description, admin_title, class_name) VALUES
    ('00000000-0000-4000-8000-010000000001', '2024-03-14 17:41:59', '2024-03-20 21:04:59', 'Home — For Planet', '/', 'en', 'Plant a tree in two clicks', 'Home', DEFAULT),
    ('00000000-0000-4000-8000-010000000002', '2024-03-16 09:48:12', '2024-03-23 13:12:12', 'Blog — For Planet', '/blog', 'en', 'Stories from the forest', 'Blog', DEFAULT),
    ('00000000-0000-4000-8000-010000000003', '2024-03-18 01:55:25', '2024-03-26 05:20:25', 'Article — For Planet', '/blog/[blog.articles.slug]', 'en', 'Description', 'Blog article', 'prose');

-- host widget (model)
INSERT INTO sps_h_widget (id, created_at, updated_at, title, admin_title, slug, description, class_name) VALUES
    ('00000000-0000-4000-8000-011000000001', '2024-03-19 17:02:38', '2024-03-28 20:28:38', '{"en": "Navbar", "ru": "Навигация"}', 'Navbar', 'host-navbar', DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-011000000002', '2024-03-21 09:09:51', '2024-03-22 12:36:51', '{"en": "Footer", "ru": "Подвал"}', 'Footer', 'host-footer', DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-011000000003', '2024-03-23 01:16:04', '2024-03-25 04:44:04', '{"en": "Home hero", "ru": "Главный экран"}', 'Home hero', 'host-hero', '{"en": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Plant a tree in two clicks.\"}]}]}", "ru": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Посадите дерево в два клика.\"}]}]}"}', 'container mx-auto'),
    ('00000000-0000-4000-8000-011000000004', '2024-03-24 17:23:17', '2024-03-27 20:52:17', '{"en": "Why trees", "ru": "Почему деревья"}', 'Why trees', 'host-why', DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-011000000005', '2024-03-26 09:30:30', '2024-03-30 13:00:30', '{"en": "Product list", "ru": "Список товаров"}', 'Product list', 'host-products', DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-011000000006', '2024-03-28 01:37:43', '2024-04-02 05:08:43', '{"en": "Volunteer form", "ru": "Форма волонтёра"}', 'Volunteer form', 'host-volunteer', DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-011000000007', '2024-03-29 17:44:56', '2024-04-04 21:16:56', '{"en": "Blog article list", "ru": "Список статей"}', 'Blog article list', 'host-blog-list', DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-011000000008', '2024-03-31 09:51:09', '2024-04-07 13:24:09', '{"en": "Blog article overview", "ru": "Статья блога"}', 'Blog article overview', 'host-article', DEFAULT, DEFAULT);

-- blog article (model)
INSERT INTO sps_blog_article (id, created_at, updated_at, title, subtitle, description, admin_title, slug, class_name) VALUES
    ('00000000-0000-4000-8000-012000000001', '2024-04-02 01:58:22', '2024-04-10 05:32:22', '{"en": "Trees clean the air", "ru": "Деревья очищают воздух"}', '{"en": "How one oak filters a street", "ru": "Как один дуб очищает улицу"}', '{"en": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Trees clean the air.\"}]},{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"A single mature tree captures about twenty kilograms of dust a year.\"}]}]}", "ru": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Деревья очищают воздух.\"}]},{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Одно взрослое дерево задерживает около двадцати килограммов пыли в год.\"}]}]}"}', 'Trees clean the air', 'trees-clean-the-air', DEFAULT),
    ('00000000-0000-4000-8000-012000000002', '2024-04-03 17:05:35', '2024-04-12 20:40:35', '{"en": "Why we plant oaks", "ru": "Почему мы сажаем дубы"}', '{"en": "Slow trees, long lives", "ru": "Медленные деревья, долгая жизнь"}', '{"en": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Oaks live for centuries and feed hundreds of species.\"}]}]}", "ru": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragrap"}', 'Why we plant oaks', 'why-we-plant-oaks', 'prose-lg'),
    ('00000000-0000-4000-8000-012000000003', '2024-04-05 09:12:48', '2024-04-06 12:48:48', '{"en": "Spring planting report", "ru": "Отчёт о весенней посадке"}', '{"en": "1,200 oaks in one weekend", "ru": "1200 дубов за одни выходные"}', '{"en": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Forty volunteers came to the Tver region in April.\"}]}]}", "ru": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\"}]}"}', 'Spring planting report', 'spring-planting-report', DEFAULT);

-- blog category (model)
INSERT INTO sps_blog_category (id, created_at, updated_at, title, subtitle, description, admin_title, slug, class_name) VALUES
    ('00000000-0000-4000-8000-013000000001', '2024-04-07 01:19:01', '2024-04-09 04:56:01', '{"en": "Ecology", "ru": "Экология"}', '{"en": "Why forests matter", "ru": "Зачем нужны леса"}', '{"en": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Articles about forests, air and soil.\"}]}]}", "ru": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Статьи о лесах, воздухе и почве.\"}]}]}"}', 'Ecology', 'ecology', DEFAULT),
    ('00000000-0000-4000-8000-013000000002', '2024-04-08 17:26:14', '2024-04-11 21:04:14', '{"en": "Volunteering", "ru": "Волонтёрство"}', DEFAULT, '{"en": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Reports from our planting days.\"}]}]}", "ru": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Отчёты с наших дней посадки.\"}]}]}"}', 'Volunteering', 'volunteering', 'bg-green-50');

-- blog widget (model)
INSERT INTO sps_blog_widget (id, created_at, updated_at, variant, title, admin_title, slug) VALUES
    ('00000000-0000-4000-8000-014000000001', '2024-04-10 09:33:27', '2024-04-14 13:12:27', 'article-list-default', '{"en": "Stories from the forest", "ru": "Истории из леса"}', 'Blog article list', 'blog-article-list'),
    ('00000000-0000-4000-8000-014000000002', '2024-04-12 01:40:40', '2024-04-17 05:20:40', 'article-overview-default', '{"en": "Article", "ru": "Статья"}', 'Blog article overview', 'blog-article-overview');

-- ecommerce attribute (model)
INSERT INTO sps_ee_attribute (id, created_at, updated_at, number, string, boolean, date, datetime) VALUES
    ('00000000-0000-4000-8000-015000000001', '2024-04-13 17:47:53', '2024-04-19 21:28:53', 590, DEFAULT, DEFAULT, DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-015000000002', '2024-04-15 09:54:06', '2024-04-22 13:36:06', 7.50, DEFAULT, DEFAULT, DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-015000000003', '2024-04-17 01:01:19', '2024-04-25 04:44:19', 199, DEFAULT, DEFAULT, DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-015000000004', '2024-04-18 17:08:32', '2024-04-27 20:52:32', DEFAULT, '{"en": "month", "ru": "месяц"}', DEFAULT, DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-015000000005', '2024-04-20 09:15:45', '2024-04-21 13:00:45', DEFAULT, '{"en": "Oak", "ru": "Дуб"}', DEFAULT, DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-015000000006', '2024-04-22 01:22:58', '2024-04-24 05:08:58', DEFAULT, DEFAULT, true, '2025-04-22 00:00:00', '2025-04-22 10:30:00'),
    ('00000000-0000-4000-8000-015000000007', '2024-04-23 17:29:11', '2024-04-26 21:16:11', 2.99, DEFAULT, DEFAULT, DEFAULT, DEFAULT);

-- ecommerce attribute-key (model)
INSERT INTO sps_ee_ae_ky (id, created_at, updated_at, type, field, title, prefix, suffix, admin_title, slug) VALUES
    ('00000000-0000-4000-8000-016000000001', '2024-04-25 09:36:24', '2024-04-29 13:24:24', 'price', 'number', '{"en": "Price", "ru": "Цена"}', '{"en": "from", "ru": "от"}', '{"en": "per tree", "ru": "за дерево"}', 'Price', 'price'),
    ('00000000-0000-4000-8000-016000000002', '2024-04-27 01:43:37', '2024-05-02 05:32:37', 'interval', 'string', '{"en": "Billing interval", "ru": "Период оплаты"}', '{"en": "every", "ru": "каждый"}', DEFAULT, 'Interval', 'interval'),
    ('00000000-0000-4000-8000-016000000003', '2024-04-28 17:50:50', '2024-05-04 20:50:50', 'feature', 'string', '{"en": "Tree species", "ru": "Порода дерева"}', DEFAULT, DEFAULT, 'Tree species', 'tree-species'),
    ('00000000-0000-4000-8000-016000000004', '2024-04-30 09:57:03', '2024-05-07 12:58:03', '', 'boolean', '{"en": "API key", "ru": "API-ключ"}', DEFAULT, DEFAULT, 'Api key', 'api-key');

-- ecommerce category (model)
INSERT INTO sps_ee_category (id, created_at, updated_at, title, description, admin_title, slug, subtitle, class_name) VALUES
    ('00000000-0000-4000-8000-017000000001', '2024-05-02 01:04:16', '2024-05-10 04:06:16', '{"en": "Trees", "ru": "Деревья"}', '{"en": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Single trees you can plant today.\"}]}]}", "ru": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Деревья, которые можно посадить сегодня.\"}]}]}"}', 'Trees', 'trees', DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-017000000002', '2024-05-03 17:11:29', '2024-05-12 20:14:29', '{"en": "Subscriptions", "ru": "Подписки"}', DEFAULT, 'Subscriptions', 'subscriptions', '{"en": "Help every month", "ru": "Помогайте каждый месяц"}', 'border-green-600');

-- ecommerce order (model)
INSERT INTO sps_ee_order (id, created_at, updated_at, status, type, comment, receipt) VALUES
    ('00000000-0000-4000-8000-018000000001', '2024-05-05 09:18:42', '2024-05-06 12:22:42', 'new', 'cart', DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-018000000002', '2024-05-07 01:25:55', '2024-05-09 04:30:55', 'paying', 'cart', DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-018000000003', '2024-05-08 17:32:08', '2024-05-11 20:38:08', 'approving', 'history', 'Please plant it near the river / Посадите у реки, пожалуйста', '/file-storage/static/receipt-1001.png'),
    ('00000000-0000-4000-8000-018000000004', '2024-05-10 09:39:21', '2024-05-14 12:46:21', 'packaging', 'history', DEFAULT, '/file-storage/static/young-oak.png'),
    ('00000000-0000-4000-8000-018000000005', '2024-05-12 01:46:34', '2024-05-17 04:54:34', 'delivering', 'history', DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-018000000006', '2024-05-13 17:53:47', '2024-05-19 21:02:47', 'delivered', 'history', DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-018000000007', '2024-05-15 09:00:00', '2024-05-22 12:10:00', 'canceled', 'history', DEFAULT, DEFAULT);

-- ecommerce product (model)
INSERT INTO sps_ee_product (id, created_at, updated_at, type, title, short_description, description, admin_title, slug) VALUES
    ('00000000-0000-4000-8000-019000000001', '2024-05-17 01:07:13', '2024-05-25 04:18:13', 'one_off', '{"en": "Plant a tree", "ru": "Посадить дерево"}', '{"en": "One oak seedling planted by our volunteers", "ru": "Один саженец дуба, посаженный нашими волонтёрами"}', '{"en": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"We plant your oak in spring and send you its photo.\"}]}]}", "ru": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Мы посадим ваш дуб весной и пришлём его фотографию.\"}]}]}"}', 'Plant a tree', 'plant-a-tree'),
    ('00000000-0000-4000-8000-019000000002', '2024-05-18 17:14:26', '2024-05-27 20:26:26', 'subscription', '{"en": "A tree every month", "ru": "Дерево каждый месяц"}', '{"en": "Monthly subscription: one tree a month", "ru": "Ежемесячная подписка: одно дерево в месяц"}', '{"en": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Support the forest regularly and get the pro-subscriber role.\"}]}]}", "ru": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Поддерживайте лес регулярно и получите роль подписчика.\"}]}]}"}', 'A tree every month', 'a-tree-every-month');

-- ecommerce store (model)
INSERT INTO sps_ee_store (id, created_at, updated_at, title, short_description, description, admin_title, slug) VALUES
    ('00000000-0000-4000-8000-020000000001', '2024-05-20 09:21:39', '2024-05-21 12:34:39', '{"en": "For Planet store", "ru": "Магазин «Для планеты»"}', '{"en": "Trees and subscriptions", "ru": "Деревья и подписки"}', '{"en": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"All money goes to planting.\"}]}]}", "ru": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Все деньги идут на посадку.\"}]}]}"}', 'For Planet store', 'for-planet-store');

-- ecommerce widget (model)
INSERT INTO sps_ee_widget (id, created_at, updated_at, variant, title, anchor, admin_title, slug) VALUES
    ('00000000-0000-4000-8000-021000000001', '2024-05-22 01:28:52', '2024-05-24 04:42:52', 'product-list-default', '{"en": "Choose your tree", "ru": "Выберите своё дерево"}', 'shop', 'Product list', 'product-list'),
    ('00000000-0000-4000-8000-021000000002', '2024-05-23 17:35:05', '2024-05-26 20:50:05', 'product-overview-default', '{"en": "Product", "ru": "Товар"}', DEFAULT, 'Product overview', 'product-overview'),
    ('00000000-0000-4000-8000-021000000003', '2024-05-25 09:42:18', '2024-05-29 12:58:18', 'order-list-default', '{"en": "My orders", "ru": "Мои заказы"}', DEFAULT, 'Order list', 'order-list');

-- rbac action (model)
INSERT INTO sps_rc_action (id, created_at, updated_at, type, method, path) VALUES
    ('00000000-0000-4000-8000-022000000001', '2024-05-27 01:49:31', '2024-06-01 05:06:31', 'HTTP', '*', '*'),
    ('00000000-0000-4000-8000-022000000002', '2024-05-28 17:56:44', '2024-06-03 21:14:44', 'HTTP', 'GET', '/api/blog/articles/[blog.articles.id]'),
    ('00000000-0000-4000-8000-022000000003', '2024-05-30 09:03:57', '2024-06-06 12:22:57', 'HTTP', 'GET', '/api/rbac/subjects/[rbac.subjects.id]/ecommerce-module/orders'),
    ('00000000-0000-4000-8000-022000000004', '2024-06-01 01:10:10', '2024-06-09 04:30:10', 'HTTP', 'POST', '/api/rbac/subjects/[rbac.subjects.id]/ecommerce-module/orders'),
    ('00000000-0000-4000-8000-022000000005', '2024-06-02 17:17:23', '2024-06-11 20:38:23', 'HTTP', 'PATCH', '/api/rbac/subjects/[rbac.subjects.id]/ecommerce-module/orders/[ecommerce.orders.id]'),
    ('00000000-0000-4000-8000-022000000006', '2024-06-04 09:24:36', '2024-06-05 12:46:36', 'HTTP', 'POST', '/api/crm/forms/[crm.forms.id]/requests'),
    ('00000000-0000-4000-8000-022000000007', '2024-06-06 01:31:49', '2024-06-08 04:54:49', 'HTTP', 'POST', '/api/billing/payment-intents/cloudpayments/webhook'),
    ('00000000-0000-4000-8000-022000000008', '2024-06-07 17:38:02', '2024-06-10 21:02:02', 'HTTP', 'GET', '/api/legacy/reports');

-- rbac identity (model)
INSERT INTO sps_rc_identity (id, created_at, updated_at, provider, email, password, salt, code, account) VALUES
    ('00000000-0000-4000-8000-023000000001', '2024-06-09 09:45:15', '2024-06-13 13:10:15', 'email_and_password', 'olga@example.com', '$2a$10$qAAIYd/kktJJsHgvfj8IjurE6z6Ov7vcaQXw2vYjA2T135.eEXFjG', '$2a$10$qAAIYd/kktJJsHgvfj8Iju', DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-023000000002', '2024-06-11 01:52:28', '2024-06-16 05:18:28', 'email_and_password', 'ivan@example.com', '$2a$10$9viDHFgoNWSNDctkvSPstuqyioDG6ldBDG8qeYO7qEGPDtEuFRqJe', '$2a$10$9viDHFgoNWSNDctkvSPstu', '7d3f9a2c-51e8-4b6a-9f0d-c2e4b8a61d35', DEFAULT),
    ('00000000-0000-4000-8000-023000000003', '2024-06-12 17:59:41', '2024-06-18 21:26:41', 'ethereum_virtual_machine', DEFAULT, DEFAULT, DEFAULT, DEFAULT, '0x52908400098527886e0f7030069857d2e4169ee7'),
    ('00000000-0000-4000-8000-023000000004', '2024-06-14 09:06:54', '2024-06-21 12:34:54', 'telegram', DEFAULT, DEFAULT, DEFAULT, DEFAULT, '123456789'),
    ('00000000-0000-4000-8000-023000000005', '2024-06-16 01:13:07', '2024-06-24 04:42:07', 'email', 'anna@example.com', DEFAULT, DEFAULT, DEFAULT, DEFAULT);

-- rbac role (model)
INSERT INTO sps_rc_role (id, created_at, updated_at, title, slug, available_on_registration) VALUES
    ('00000000-0000-4000-8000-024000000001', '2024-06-17 17:20:20', '2024-06-26 20:50:20', 'User', 'user', true),
    ('00000000-0000-4000-8000-024000000002', '2024-06-19 09:27:33', '2024-06-20 12:58:33', 'Admin', 'admin', false),
    ('00000000-0000-4000-8000-024000000003', '2024-06-21 01:34:46', '2024-06-23 05:06:46', 'Pro subscriber', 'pro-subscriber', false);

-- rbac session (model)
INSERT INTO sps_rc_session (id, created_at, updated_at, expires_at, options) VALUES
    ('00000000-0000-4000-8000-025000000001', '2024-06-22 17:41:59', '2024-06-25 21:14:59', '2025-12-31 23:00:00', '{}');

-- rbac subject (model)
INSERT INTO sps_rc_subject (id, created_at, updated_at, slug) VALUES
    ('00000000-0000-4000-8000-026000000001', '2024-06-24 09:48:12', '2024-06-28 13:22:12', 'bright-olive-otter'),
    ('00000000-0000-4000-8000-026000000002', '2024-06-26 01:55:25', '2024-07-01 05:30:25', 'calm-teal-badger'),
    ('00000000-0000-4000-8000-026000000003', '2024-06-27 17:02:38', '2024-07-03 20:38:38', 'quick-silver-heron'),
    ('00000000-0000-4000-8000-026000000004', '2024-06-29 09:09:51', '2024-07-06 12:46:51', 'warm-amber-fox');

-- rbac widget (model)
INSERT INTO sps_rc_widget (id, created_at, updated_at, variant, title, description, admin_title, slug) VALUES
    ('00000000-0000-4000-8000-027000000001', '2024-07-01 01:16:04', '2024-07-09 04:54:04', 'subject-authentication-select-method-default', '{"en": "Sign in", "ru": "Вход"}', '{"en": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Choose how to sign in.\"}]}]}", "ru": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Выберите способ входа.\"}]}]}"}', 'Sign in methods', 'sign-in-methods'),
    ('00000000-0000-4000-8000-027000000002', '2024-07-02 17:23:17', '2024-07-11 21:02:17', 'subject-overview-default', '{"en": "My account", "ru": "Мой профиль"}', DEFAULT, 'Subject overview', 'subject-overview');

-- social attribute (model)
INSERT INTO sl_attribute (id, created_at, updated_at, string, number) VALUES
    ('00000000-0000-4000-8000-028000000001', '2024-07-04 09:30:30', '2024-07-05 13:10:30', '{"en": "Birch", "ru": "Берёза"}', DEFAULT),
    ('00000000-0000-4000-8000-028000000002', '2024-07-06 01:37:43', '2024-07-08 05:18:43', DEFAULT, 120);

-- social attribute-key (model)
INSERT INTO sl_ae_ky (id, created_at, updated_at, type, field, title, admin_title, slug) VALUES
    ('00000000-0000-4000-8000-029000000001', '2024-07-07 17:44:56', '2024-07-10 21:26:56', 'feature', 'string', '{"en": "Favourite tree", "ru": "Любимое дерево"}', 'Favourite tree', 'favourite-tree');

-- social chat (model)
INSERT INTO sl_chat (id, created_at, updated_at, title, description, admin_title, slug, variant, source_system_id, class_name) VALUES
    ('00000000-0000-4000-8000-030000000001', '2024-07-09 09:51:09', '2024-07-13 13:34:09', 'Order support', 'Questions about order delivery', 'Order support', 'order-support', DEFAULT, DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-030000000002', '2024-07-11 01:58:22', '2024-07-16 05:42:22', 'For Planet volunteers', 'Telegram group of volunteers', 'Volunteers telegram', 'volunteers-telegram', 'telegram', '-1001234567890', 'tg-chat');

-- social message (model)
INSERT INTO sl_message (id, created_at, updated_at, title, description, source_system_id, subtitle) VALUES
    ('00000000-0000-4000-8000-031000000001', '2024-07-12 17:05:35', '2024-07-18 20:50:35', 'Question', 'When will my oak be planted?', DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-031000000002', '2024-07-14 09:12:48', '2024-07-21 12:58:48', 'Answer', 'Your oak will be planted on 19 April; we will send a photo.', DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-031000000003', '2024-07-16 01:19:01', '2024-07-24 05:06:01', DEFAULT, 'Сбор в субботу в 9:00 у станции.', '4211', 'pinned');

-- social profile (model)
INSERT INTO sl_profile (id, created_at, updated_at, title, subtitle, description, admin_title, slug, variant) VALUES
    ('00000000-0000-4000-8000-032000000001', '2024-07-17 17:26:14', '2024-07-26 21:14:14', '{"en": "Olga Smirnova", "ru": "Ольга Смирнова"}', '{"en": "Forest keeper", "ru": "Хранительница леса"}', '{"en": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"I organise planting days near Tver.\"}]}]}", "ru": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Я организую дни посадки под Тверью.\"}]}]}"}', 'Olga Smirnova', 'olga-smirnova', DEFAULT),
    ('00000000-0000-4000-8000-032000000002', '2024-07-19 09:33:27', '2024-07-20 13:22:27', '{"en": "Forest assistant", "ru": "Лесной помощник"}', DEFAULT, '{"en": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"I answer questions about your trees.\"}]}]}", "ru": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Я отвечаю на вопросы о ваших деревьях.\"}]}]}"}', 'Forest assistant', 'forest-assistant', 'artificial-intelligence');

-- social widget (model)
INSERT INTO sl_widget (id, created_at, updated_at, variant, title, admin_title, slug) VALUES
    ('00000000-0000-4000-8000-033000000001', '2024-07-21 01:40:40', '2024-07-23 04:40:40', 'chat-list-default', '{"en": "Chats", "ru": "Чаты"}', 'Chat list', 'chat-list'),
    ('00000000-0000-4000-8000-033000000002', '2024-07-22 17:47:53', '2024-07-25 20:48:53', 'profile-overview-default', '{"en": "Profile", "ru": "Профиль"}', 'Profile overview', 'profile-overview');

-- crm form (model)
INSERT INTO sps_cm_form (id, created_at, updated_at, title, subtitle, description, admin_title, slug, class_name) VALUES
    ('00000000-0000-4000-8000-034000000001', '2024-07-24 09:54:06', '2024-07-28 12:56:06', '{"en": "Become a volunteer", "ru": "Стать волонтёром"}', '{"en": "Join the next planting day", "ru": "Приходите на следующий день посадки"}', '{"en": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Leave your name and we will write to you.\"}]}]}", "ru": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Оставьте имя, и мы вам напишем.\"}]}]}"}', 'Volunteer sign-up', 'volunteer-signup', 'max-w-lg');

-- crm input (model)
INSERT INTO sps_cm_input (id, created_at, updated_at, variant, type, is_required, title, label, placeholder, admin_title, slug, description) VALUES
    ('00000000-0000-4000-8000-035000000001', '2024-07-26 01:01:19', '2024-07-31 04:04:19', 'text-default', 'text', true, '{"en": "Name", "ru": "Имя"}', '{"en": "Your name", "ru": "Ваше имя"}', '{"en": "Maria", "ru": "Мария"}', 'Name', 'name', DEFAULT),
    ('00000000-0000-4000-8000-035000000002', '2024-07-27 17:08:32', '2024-08-02 20:12:32', 'textarea-default', 'textarea', false, '{"en": "Message", "ru": "Сообщение"}', '{"en": "What would you like to do?", "ru": "Чем хотите помочь?"}', '{"en": "I can bring a shovel", "ru": "Могу привезти лопату"}', 'Message', 'message', '{"en": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Optional.\"}]}]}", "ru": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Необязательно.\"}]}]}"}'),
    ('00000000-0000-4000-8000-035000000003', '2024-07-29 09:15:45', '2024-08-05 12:20:45', 'number-default', 'number', false, '{"en": "Trees", "ru": "Деревья"}', '{"en": "How many trees will you plant?", "ru": "Сколько деревьев посадите?"}', '{"en": "10", "ru": "10"}', 'Trees count', 'trees-count', DEFAULT);

-- crm request (model)
INSERT INTO sps_cm_request (id, created_at, updated_at, payload) VALUES
    ('00000000-0000-4000-8000-036000000001', '2024-07-31 01:22:58', '2024-08-08 04:28:58', '{"name": "Мария Иванова", "message": "Могу привезти лопату и перчатки.", "trees-count": 10, "formId": "00000000-0000-4000-8000-034000000001"}'),
    ('00000000-0000-4000-8000-036000000002', '2024-08-01 17:29:11', '2024-08-10 20:36:11', '{"name": "Pavel", "message": "", "trees-count": 3, "formId": "00000000-0000-4000-8000-034000000001"}');

-- crm widget (model)
INSERT INTO sps_cm_widget (id, created_at, updated_at, variant, title, admin_title, slug) VALUES
    ('00000000-0000-4000-8000-037000000001', '2024-08-03 09:36:24', '2024-08-04 12:44:24', 'form-list-default', '{"en": "Help the forest", "ru": "Помогите лесу"}', 'Volunteer form widget', 'volunteer-form-widget');

-- billing currency (model)
INSERT INTO sps_bg_currency (id, created_at, updated_at, is_default, symbol, title, admin_title, slug) VALUES
    ('00000000-0000-4000-8000-038000000001', '2024-08-05 01:43:37', '2024-08-07 04:52:37', true, '₽', 'Russian ruble', 'RUB', 'rub'),
    ('00000000-0000-4000-8000-038000000002', '2024-08-06 17:50:50', '2024-08-09 21:00:50', false, '$', 'US dollar', 'USD', 'usd');

-- billing invoice (model)
INSERT INTO sps_bg_invoice (id, created_at, updated_at, status, provider, provider_id, amount, payment_url, success_url, cancel_url) VALUES
    ('00000000-0000-4000-8000-039000000001', '2024-08-08 09:57:03', '2024-08-12 13:08:03', 'paid', 'cloudpayments', 'cp-48151623', 1180, 'https://orders.cloudpayments.ru/d/aB3dEf9h', 'https://forplanet.example.com/', 'https://forplanet.example.com/'),
    ('00000000-0000-4000-8000-039000000002', '2024-08-10 01:04:16', '2024-08-15 04:16:16', 'open', 'cloudpayments', 'cp-48151624', 590, 'https://orders.cloudpayments.ru/d/Xy7pQr2s', 'https://forplanet.example.com/', 'https://forplanet.example.com/'),
    ('00000000-0000-4000-8000-039000000003', '2024-08-11 17:11:29', '2024-08-17 20:24:29', 'draft', 'stripe', DEFAULT, 590, DEFAULT, DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-039000000004', '2024-08-13 09:18:42', '2024-08-20 12:32:42', 'void', 'stripe', 'cs_test_a1B2c3D4', 590, 'https://checkout.stripe.com/c/pay/cs_test_a1B2c3D4', DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-039000000005', '2024-08-15 01:25:55', '2024-08-23 04:40:55', 'paid', 'cloudpayments', 'cp-48151700', 199, 'https://orders.cloudpayments.ru/d/Sub199aa', DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-039000000006', '2024-08-16 17:32:08', '2024-08-25 20:48:08', 'paid', 'stripe', 'cs_live_q9W8e7', 15, 'https://checkout.stripe.com/c/pay/cs_live_q9W8e7', DEFAULT, DEFAULT),
    ('00000000-0000-4000-8000-039000000007', '2024-08-18 09:39:21', '2024-08-19 12:56:21', 'paid', 'cloudpayments', 'cp-47000001', 199, 'https://orders.cloudpayments.ru/d/Sub199zz', DEFAULT, DEFAULT);

-- billing payment-intent (model)
INSERT INTO sps_bg_pt_it (id, created_at, updated_at, amount, status, type, interval) VALUES
    ('00000000-0000-4000-8000-040000000001', '2024-08-20 01:46:34', '2024-08-22 05:04:34', 1180, 'succeeded', 'one_off', DEFAULT),
    ('00000000-0000-4000-8000-040000000002', '2024-08-21 17:53:47', '2024-08-24 21:12:47', 590, 'requires_payment_method', 'one_off', DEFAULT),
    ('00000000-0000-4000-8000-040000000003', '2024-08-23 09:00:00', '2024-08-27 12:20:00', 590, 'canceled', 'one_off', DEFAULT),
    ('00000000-0000-4000-8000-040000000004', '2024-08-25 01:07:13', '2024-08-30 04:28:13', 199, 'succeeded', 'subscription', 'month'),
    ('00000000-0000-4000-8000-040000000005', '2024-08-26 17:14:26', '2024-09-01 20:36:26', 15, 'succeeded', 'one_off', DEFAULT),
    ('00000000-0000-4000-8000-040000000006', '2024-08-28 09:21:39', '2024-09-04 12:44:39', 199, 'succeeded', 'subscription', 'month');

-- billing widget (model)
INSERT INTO sps_bg_widget (id, created_at, updated_at, title, description, admin_title, slug) VALUES
    ('00000000-0000-4000-8000-041000000001', '2024-08-30 01:28:52', '2024-09-07 04:52:52', '{"en": "Payment", "ru": "Оплата"}', '{"en": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Pay by card or with a wallet.\"}]}]}", "ru": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Оплатите картой или кошельком.\"}]}]}"}', 'Checkout widget', 'checkout-widget');

-- notification notification (model)
INSERT INTO sps_nn_notification (id, created_at, updated_at, status, method, title, reciever, data, send_after, attachments) VALUES
    ('00000000-0000-4000-8000-042000000001', '2024-08-31 17:35:05', '2024-09-09 21:00:05', 'sent', 'email', 'Your order is approved', 'ivan@example.com', '{"ecommerce": {"order": {"id": "00000000-0000-4000-8000-018000000003", "status": "approving", "checkoutAttributes": {"amount": 1180, "type": "one_off"}, "comment": "Please plant it near the river / Посадите у реки, пожалуйста"}}}', '2025-03-02 10:00:00', '[{"type": "image", "url": "https://api.forplanet.example.com/public/file-storage/static/young-oak.png"}]'),
    ('00000000-0000-4000-8000-042000000002', '2024-09-02 09:42:18', '2024-09-03 13:08:18', 'new', 'email', NULL, 'olga@example.com', '{"crm": {"form": {"slug": "volunteer-signup"}, "request": {"payload": {"name": "Мария"}}}}', '2025-06-01 09:00:00', DEFAULT);

-- notification template (model)
INSERT INTO sps_nn_template (id, created_at, updated_at, variant, title, admin_title, slug) VALUES
    ('00000000-0000-4000-8000-043000000001', '2024-09-04 01:49:31', '2024-09-06 05:16:31', 'default', 'Notification', 'Notification', 'default-template'),
    ('00000000-0000-4000-8000-043000000002', '2024-09-05 17:56:44', '2024-09-08 21:24:44', 'generate-email-ecommerce-order-status-changed-default', 'Your order status changed', 'Your order status changed', 'generate-email-ecommerce-order-status-changed-default'),
    ('00000000-0000-4000-8000-043000000003', '2024-09-07 09:03:57', '2024-09-11 12:32:57', 'generate-telegram-ecommerce-order-status-changed-default', 'Order status changed', 'Order status changed', 'generate-telegram-ecommerce-order-status-changed-default'),
    ('00000000-0000-4000-8000-043000000004', '2024-09-09 01:10:10', '2024-09-14 04:40:10', 'generate-telegram-ecommerce-order-status-changed-admin', 'Order status changed (admin)', 'Order status changed, admin telegram', 'generate-telegram-ecommerce-order-status-changed-admin'),
    ('00000000-0000-4000-8000-043000000005', '2024-09-10 17:17:23', '2024-09-16 20:48:23', 'reset-password', 'Reset your password', 'Reset your password', 'reset-password'),
    ('00000000-0000-4000-8000-043000000006', '2024-09-12 09:24:36', '2024-09-19 12:56:36', 'generate-email-agent-result-admin', 'Agent result', 'Agent result', 'generate-email-agent-result-admin'),
    ('00000000-0000-4000-8000-043000000007', '2024-09-14 01:31:49', '2024-09-22 05:04:49', 'generate-email-crm-form-request-created-admin', 'New volunteer request', 'New volunteer request', 'generate-email-crm-form-request-created-admin'),
    ('00000000-0000-4000-8000-043000000008', '2024-09-15 17:38:02', '2024-09-24 21:12:02', 'generate-telegram-crm-form-request-created-admin', 'New volunteer request', 'New volunteer request', 'generate-telegram-crm-form-request-created-admin');

-- notification topic (model)
INSERT INTO sps_nn_topic (id, created_at, updated_at, title, type, admin_title, slug) VALUES
    ('00000000-0000-4000-8000-044000000001', '2024-09-17 09:45:15', '2024-09-18 13:20:15', 'Information', 'info', 'Information', 'information'),
    ('00000000-0000-4000-8000-044000000002', '2024-09-19 01:52:28', '2024-09-21 05:28:28', 'Security', 'security', 'Security', 'security');

-- notification widget (model)
INSERT INTO sps_nn_widget (id, created_at, updated_at, title, admin_title, slug) VALUES
    ('00000000-0000-4000-8000-045000000001', '2024-09-20 17:59:41', '2024-09-23 21:36:41', '{"en": "Notifications", "ru": "Уведомления"}', 'Notification inbox', 'notification-inbox');

-- analytic metric (model)
INSERT INTO sps_ac_metric (id, created_at, updated_at, title, value) VALUES
    ('00000000-0000-4000-8000-046000000001', '2024-09-22 09:06:54', '2024-09-26 12:44:54', 'Trees planted', 1280),
    ('00000000-0000-4000-8000-046000000002', '2024-09-24 01:13:07', '2024-09-29 04:52:07', 'Active volunteers', 42);

-- analytic widget (model)
INSERT INTO sps_ac_widget (id, created_at, updated_at, title, description, admin_title, slug, class_name) VALUES
    ('00000000-0000-4000-8000-047000000001', '2024-09-25 17:20:20', '2024-10-01 21:00:20', '{"en": "Trees planted", "ru": "Посажено деревьев"}', '{"en": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Updated after each planting day.\"}]}]}", "ru": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Обновляется после каждого дня посадки.\"}]}]}"}', 'Trees counter', 'trees-counter', 'text-5xl');

-- startup widget (model)
INSERT INTO sp_widget (id, created_at, updated_at, title, subtitle, description, admin_title, slug) VALUES
    ('00000000-0000-4000-8000-048000000001', '2024-09-27 09:27:33', '2024-10-04 13:08:33', '{"en": "Donate to the forest", "ru": "Пожертвуйте лесу"}', '{"en": "Any amount helps", "ru": "Поможет любая сумма"}', '{"en": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Your donation buys seedlings.\"}]}]}", "ru": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Ваше пожертвование покупает саженцы.\"}]}]}"}', 'Donation block', 'donation-block');

-- file-storage file (model)
INSERT INTO sps_f_s_file (id, created_at, updated_at, file, admin_title, alt, class_name, container_class_name, width, height, size, extension, mime_type, variant) VALUES
    ('00000000-0000-4000-8000-049000000001', '2024-09-29 01:34:46', '2024-10-07 05:16:46', '/file-storage/static/for-planet-logo.png', 'For Planet logo', 'For Planet logo', 'h-8 w-auto', 'flex items-center', 4, 3, 81, 'png', 'image/png', DEFAULT),
    ('00000000-0000-4000-8000-049000000002', '2024-09-30 17:41:59', '2024-10-09 21:24:59', '/file-storage/static/young-oak.png', 'Young oak seedling', 'A young oak seedling', DEFAULT, DEFAULT, 2, 2, 83, 'png', 'image/png', DEFAULT),
    ('00000000-0000-4000-8000-049000000003', '2024-10-02 09:48:12', '2024-10-03 13:32:12', '/file-storage/static/forest-hero.webp', 'Forest hero image', 'Pine forest at dawn', 'object-cover', DEFAULT, 6, 4, 62, 'webp', 'image/webp', DEFAULT),
    ('00000000-0000-4000-8000-049000000004', '2024-10-04 01:55:25', '2024-10-06 05:40:25', 'https://cdn.example.com/missing.png', 'Missing open graph image', 'Open graph image', DEFAULT, DEFAULT, 1200, 630, 48213, 'png', 'image/png', 'generate-template-opengraph-image-default'),
    ('00000000-0000-4000-8000-049000000005', '2025-03-06 09:39:20', '2025-03-06 09:39:20', '/file-storage/static/receipt-1001.png', 'Receipt for order 1001', 'Receipt for order 1001', DEFAULT, DEFAULT, 3, 2, 73, 'png', 'image/png', DEFAULT),
    ('00000000-0000-4000-8000-049000000006', '2025-07-09 09:24:30', '2025-07-09 09:24:30', '/file-storage/static/chat-photo.png', 'Photo sent in a chat', 'A seedling in a pot', DEFAULT, DEFAULT, 2, 3, 73, 'png', 'image/png', DEFAULT);

-- file-storage widget (model)
INSERT INTO sps_f_s_widget (id, created_at, updated_at, title, subtitle, description, admin_title, slug, variant) VALUES
    ('00000000-0000-4000-8000-050000000001', '2024-10-05 17:02:38', '2024-10-08 20:48:38', '{"en": "Our forests", "ru": "Наши леса"}', '{"en": "Photos from planting days", "ru": "Фотографии с дней посадки"}', '{"en": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Every photo is a tree that is growing now.\"}]}]}", "ru": "{\"type\":\"doc\",\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"Каждая фотография — дерево, которое растёт сейчас.\"}]}]}"}', 'Forest gallery', 'forest-gallery', DEFAULT),
    ('00000000-0000-4000-8000-050000000002', '2024-10-07 09:09:51', '2024-10-11 12:56:51', '{"en": "Press kit", "ru": "Пресс-кит"}', DEFAULT, DEFAULT, 'Press kit (no variant)', 'press-kit', NULL);

-- website-builder buttons-arrays-to-buttons (relation)
INSERT INTO sps_w_b_bs_as_to_bs_i0l (id, created_at, updated_at, order_index, class_name, by_id, bn_id) VALUES
    ('00000000-0000-4000-8000-051000000001', '2024-10-09 01:16:04', '2024-10-14 05:04:04', 0, NULL, '00000000-0000-4000-8000-002000000001', '00000000-0000-4000-8000-001000000001'),
    ('00000000-0000-4000-8000-051000000002', '2024-10-10 17:23:17', '2024-10-16 21:12:17', 1, NULL, '00000000-0000-4000-8000-002000000001', '00000000-0000-4000-8000-001000000002'),
    ('00000000-0000-4000-8000-051000000003', '2024-10-12 09:30:30', '2024-10-19 12:30:30', 0, 'shrink-0', '00000000-0000-4000-8000-002000000002', '00000000-0000-4000-8000-001000000003'),
    ('00000000-0000-4000-8000-051000000004', '2024-10-14 01:37:43', '2024-10-22 04:38:43', 1, NULL, '00000000-0000-4000-8000-002000000002', '00000000-0000-4000-8000-001000000004'),
    ('00000000-0000-4000-8000-051000000005', '2024-10-15 17:44:56', '2024-10-24 20:46:56', 0, NULL, '00000000-0000-4000-8000-002000000003', '00000000-0000-4000-8000-001000000005');

-- website-builder buttons-to-file-storage-module-files (relation)
INSERT INTO sps_w_b_bs_to_fe_se_me_fs_m3s (id, created_at, updated_at, order_index, class_name, bn_id, fe_se_me_fe_id) VALUES
    ('00000000-0000-4000-8000-052000000001', '2024-10-17 09:51:09', '2024-10-18 12:54:09', 0, 'h-4 w-4', '00000000-0000-4000-8000-001000000003', '00000000-0000-4000-8000-049000000002');

-- website-builder features-to-buttons-arrays (relation)
INSERT INTO sps_w_b_fe_to_bs_as_mc2 (id, created_at, updated_at, order_index, class_name, fe_id, by_id) VALUES
    ('00000000-0000-4000-8000-053000000001', '2024-10-19 01:58:22', '2024-10-21 05:02:22', 0, NULL, '00000000-0000-4000-8000-003000000001', '00000000-0000-4000-8000-002000000002');

-- website-builder features-to-file-storage-module-files (relation)
INSERT INTO sps_w_b_fs_to_fe_se_me_fs_idk (id, created_at, updated_at, order_index, class_name, fe_id, fe_se_me_fe_id) VALUES
    ('00000000-0000-4000-8000-054000000001', '2024-10-20 17:05:35', '2024-10-23 20:10:35', 0, NULL, '00000000-0000-4000-8000-003000000001', '00000000-0000-4000-8000-049000000002'),
    ('00000000-0000-4000-8000-054000000002', '2024-10-22 09:12:48', '2024-10-26 12:18:48', 1, 'aspect-square', '00000000-0000-4000-8000-003000000002', '00000000-0000-4000-8000-049000000003');

-- website-builder logotypes-to-file-storage-module-files (relation)
INSERT INTO sps_w_b_ls_to_fe_se_me_fs_uas (id, created_at, updated_at, order_index, class_name, le_id, fe_se_me_fe_id) VALUES
    ('00000000-0000-4000-8000-055000000001', '2024-10-24 01:19:01', '2024-10-29 04:26:01', 0, NULL, '00000000-0000-4000-8000-004000000001', '00000000-0000-4000-8000-049000000001');

-- website-builder sliders-to-slides (relation)
INSERT INTO sps_w_b_ss_to_ss (id, created_at, updated_at, order_index, class_name, sr_id, se_id) VALUES
    ('00000000-0000-4000-8000-056000000001', '2024-10-25 17:26:14', '2024-10-31 20:34:14', 0, NULL, '00000000-0000-4000-8000-006000000001', '00000000-0000-4000-8000-005000000001'),
    ('00000000-0000-4000-8000-056000000002', '2024-10-27 09:33:27', '2024-11-03 12:42:27', 1, NULL, '00000000-0000-4000-8000-006000000001', '00000000-0000-4000-8000-005000000002');

-- website-builder slides-to-buttons-arrays (relation)
INSERT INTO sps_w_b_ss_to_bs_as_mot (id, created_at, updated_at, order_index, class_name, se_id, by_id) VALUES
    ('00000000-0000-4000-8000-057000000001', '2024-10-29 01:40:40', '2024-11-06 04:50:40', 0, NULL, '00000000-0000-4000-8000-005000000001', '00000000-0000-4000-8000-002000000002');

-- website-builder slides-to-file-storage-module-files (relation)
INSERT INTO sps_w_b_ss_to_fe_se_me_fs_ekr (id, created_at, updated_at, order_index, class_name, se_id, fe_se_me_fe_id) VALUES
    ('00000000-0000-4000-8000-058000000001', '2024-10-30 17:47:53', '2024-11-08 20:58:53', 0, NULL, '00000000-0000-4000-8000-005000000001', '00000000-0000-4000-8000-049000000003'),
    ('00000000-0000-4000-8000-058000000002', '2024-11-01 09:54:06', '2024-11-02 13:06:06', 0, NULL, '00000000-0000-4000-8000-005000000002', '00000000-0000-4000-8000-049000000002');

-- website-builder widgets-to-buttons-arrays (relation)
INSERT INTO sps_w_b_ws_to_bs_as_pmd (id, created_at, updated_at, order_index, class_name, wt_id, by_id, variant) VALUES
    ('00000000-0000-4000-8000-059000000001', '2024-11-03 01:01:19', '2024-11-05 04:14:19', 0, NULL, '00000000-0000-4000-8000-007000000001', '00000000-0000-4000-8000-002000000001', DEFAULT),
    ('00000000-0000-4000-8000-059000000002', '2024-11-04 17:08:32', '2024-11-07 20:22:32', 1, 'hidden md:flex', '00000000-0000-4000-8000-007000000001', '00000000-0000-4000-8000-002000000002', 'additional'),
    ('00000000-0000-4000-8000-059000000003', '2024-11-06 09:15:45', '2024-11-10 12:30:45', 0, NULL, '00000000-0000-4000-8000-007000000002', '00000000-0000-4000-8000-002000000003', DEFAULT),
    ('00000000-0000-4000-8000-059000000004', '2024-11-08 01:22:58', '2024-11-13 04:38:58', 0, NULL, '00000000-0000-4000-8000-007000000003', '00000000-0000-4000-8000-002000000002', 'extra');

-- website-builder widgets-to-features (relation)
INSERT INTO sps_w_b_ws_to_fs_c2d (id, created_at, updated_at, order_index, class_name, wt_id, fe_id) VALUES
    ('00000000-0000-4000-8000-060000000001', '2024-11-09 17:29:11', '2024-11-15 20:46:11', 0, NULL, '00000000-0000-4000-8000-007000000004', '00000000-0000-4000-8000-003000000001'),
    ('00000000-0000-4000-8000-060000000002', '2024-11-11 09:36:24', '2024-11-18 12:54:24', 1, NULL, '00000000-0000-4000-8000-007000000004', '00000000-0000-4000-8000-003000000002');

-- website-builder widgets-to-file-storage-module-files (relation)
INSERT INTO sps_w_b_ws_to_fe_se_me_fs_abs (id, created_at, updated_at, order_index, class_name, wt_id, fe_se_me_fe_id) VALUES
    ('00000000-0000-4000-8000-061000000001', '2024-11-13 01:43:37', '2024-11-21 05:02:37', 0, 'rounded-2xl', '00000000-0000-4000-8000-007000000003', '00000000-0000-4000-8000-049000000003');

-- website-builder widgets-to-logotypes (relation)
INSERT INTO sps_w_b_ws_to_ls_pbd (id, created_at, updated_at, order_index, class_name, wt_id, le_id) VALUES
    ('00000000-0000-4000-8000-062000000001', '2024-11-14 17:50:50', '2024-11-23 21:10:50', 0, NULL, '00000000-0000-4000-8000-007000000001', '00000000-0000-4000-8000-004000000001'),
    ('00000000-0000-4000-8000-062000000002', '2024-11-16 09:57:03', '2024-11-17 13:18:03', 0, 'opacity-80', '00000000-0000-4000-8000-007000000002', '00000000-0000-4000-8000-004000000001');

-- website-builder widgets-to-sliders (relation)
INSERT INTO sps_w_b_ws_to_ss_dc4 (id, created_at, updated_at, order_index, class_name, wt_id, sr_id) VALUES
    ('00000000-0000-4000-8000-063000000001', '2024-11-18 01:04:16', '2024-11-20 04:26:16', 0, NULL, '00000000-0000-4000-8000-007000000003', '00000000-0000-4000-8000-006000000001');

-- host layouts-to-widgets (relation)
INSERT INTO sps_h_ls_to_ws_v2d (id, created_at, updated_at, order_index, class_name, lt_id, wt_id, variant) VALUES
    ('00000000-0000-4000-8000-064000000001', '2024-11-19 17:11:29', '2024-11-22 20:34:29', 0, NULL, '00000000-0000-4000-8000-008000000001', '00000000-0000-4000-8000-011000000001', DEFAULT),
    ('00000000-0000-4000-8000-064000000002', '2024-11-21 09:18:42', '2024-11-25 12:42:42', 0, 'mt-auto', '00000000-0000-4000-8000-008000000001', '00000000-0000-4000-8000-011000000002', 'additional');

-- host pages-to-layouts (relation)
INSERT INTO sps_h_ps_to_ls_gxd (id, created_at, updated_at, order_index, class_name, pe_id, lt_id) VALUES
    ('00000000-0000-4000-8000-065000000001', '2024-11-23 01:25:55', '2024-11-28 04:50:55', 0, NULL, '00000000-0000-4000-8000-010000000001', '00000000-0000-4000-8000-008000000001'),
    ('00000000-0000-4000-8000-065000000002', '2024-11-24 17:32:08', '2024-11-30 20:58:08', 0, NULL, '00000000-0000-4000-8000-010000000002', '00000000-0000-4000-8000-008000000001'),
    ('00000000-0000-4000-8000-065000000003', '2024-11-26 09:39:21', '2024-12-03 13:06:21', 0, NULL, '00000000-0000-4000-8000-010000000003', '00000000-0000-4000-8000-008000000001');

-- host pages-to-metadata (relation)
INSERT INTO sps_h_ps_to_ma_4m4 (id, created_at, updated_at, order_index, class_name, pe_id, ma_id) VALUES
    ('00000000-0000-4000-8000-066000000001', '2024-11-28 01:46:34', '2024-12-06 05:14:34', 0, NULL, '00000000-0000-4000-8000-010000000001', '00000000-0000-4000-8000-009000000001'),
    ('00000000-0000-4000-8000-066000000002', '2024-11-29 17:53:47', '2024-12-08 21:22:47', 0, NULL, '00000000-0000-4000-8000-010000000002', '00000000-0000-4000-8000-009000000002'),
    ('00000000-0000-4000-8000-066000000003', '2024-12-01 09:00:00', '2024-12-02 12:30:00', 0, NULL, '00000000-0000-4000-8000-010000000003', '00000000-0000-4000-8000-009000000003');

-- host pages-to-widgets (relation)
INSERT INTO sps_h_ps_to_ws_xyv (id, created_at, updated_at, order_index, class_name, pe_id, wt_id) VALUES
    ('00000000-0000-4000-8000-067000000001', '2024-12-03 01:07:13', '2024-12-05 04:38:13', 0, NULL, '00000000-0000-4000-8000-010000000001', '00000000-0000-4000-8000-011000000003'),
    ('00000000-0000-4000-8000-067000000002', '2024-12-04 17:14:26', '2024-12-07 20:46:26', 1, NULL, '00000000-0000-4000-8000-010000000001', '00000000-0000-4000-8000-011000000004'),
    ('00000000-0000-4000-8000-067000000003', '2024-12-06 09:21:39', '2024-12-10 12:54:39', 2, NULL, '00000000-0000-4000-8000-010000000001', '00000000-0000-4000-8000-011000000005'),
    ('00000000-0000-4000-8000-067000000004', '2024-12-08 01:28:52', '2024-12-13 05:02:52', 3, 'bg-green-50', '00000000-0000-4000-8000-010000000001', '00000000-0000-4000-8000-011000000006'),
    ('00000000-0000-4000-8000-067000000005', '2024-12-09 17:35:05', '2024-12-15 21:10:05', 0, NULL, '00000000-0000-4000-8000-010000000002', '00000000-0000-4000-8000-011000000007'),
    ('00000000-0000-4000-8000-067000000006', '2024-12-11 09:42:18', '2024-12-18 13:18:18', 0, NULL, '00000000-0000-4000-8000-010000000003', '00000000-0000-4000-8000-011000000008');

-- host widgets-to-external-widgets (relation)
INSERT INTO sps_h_ws_to_el_ws_1g0 (id, created_at, updated_at, order_index, class_name, wt_id, external_module, external_widget_id) VALUES
    ('00000000-0000-4000-8000-068000000001', '2024-12-13 01:49:31', '2024-12-21 05:26:31', 0, NULL, '00000000-0000-4000-8000-011000000001', 'website-builder', '00000000-0000-4000-8000-007000000001'),
    ('00000000-0000-4000-8000-068000000002', '2024-12-14 17:56:44', '2024-12-23 21:34:44', 0, NULL, '00000000-0000-4000-8000-011000000002', 'website-builder', '00000000-0000-4000-8000-007000000002'),
    ('00000000-0000-4000-8000-068000000003', '2024-12-16 09:03:57', '2024-12-17 12:42:57', 0, NULL, '00000000-0000-4000-8000-011000000003', 'website-builder', '00000000-0000-4000-8000-007000000003'),
    ('00000000-0000-4000-8000-068000000004', '2024-12-18 01:10:10', '2024-12-20 04:50:10', 0, NULL, '00000000-0000-4000-8000-011000000004', 'website-builder', '00000000-0000-4000-8000-007000000004'),
    ('00000000-0000-4000-8000-068000000005', '2024-12-19 17:17:23', '2024-12-22 20:58:23', 0, NULL, '00000000-0000-4000-8000-011000000005', 'ecommerce', '00000000-0000-4000-8000-021000000001'),
    ('00000000-0000-4000-8000-068000000006', '2024-12-21 09:24:36', '2024-12-25 13:06:36', 0, NULL, '00000000-0000-4000-8000-011000000006', 'crm', '00000000-0000-4000-8000-037000000001'),
    ('00000000-0000-4000-8000-068000000007', '2024-12-23 01:31:49', '2024-12-28 05:14:49', 0, NULL, '00000000-0000-4000-8000-011000000007', 'blog', '00000000-0000-4000-8000-014000000001'),
    ('00000000-0000-4000-8000-068000000008', '2024-12-24 17:38:02', '2024-12-30 21:22:02', 0, NULL, '00000000-0000-4000-8000-011000000008', 'blog', '00000000-0000-4000-8000-014000000002');

-- blog articles-to-ecommerce-module-products (relation)
INSERT INTO bg_as_to_ee_me_ps_bd9 (id, created_at, updated_at, order_index, class_name, ae_id, ee_me_pt_id) VALUES
    ('00000000-0000-4000-8000-069000000001', '2024-12-26 09:45:15', '2025-01-02 13:30:15', 0, NULL, '00000000-0000-4000-8000-012000000001', '00000000-0000-4000-8000-019000000001'),
    ('00000000-0000-4000-8000-069000000002', '2024-12-28 01:52:28', '2025-01-05 05:38:28', 0, 'mt-8', '00000000-0000-4000-8000-012000000002', '00000000-0000-4000-8000-019000000002');

-- blog articles-to-file-storage-module-files (relation)
INSERT INTO sps_blog_as_to_fe_se_me_fs_d24 (id, created_at, updated_at, order_index, class_name, ae_id, fe_se_me_fe_id) VALUES
    ('00000000-0000-4000-8000-070000000001', '2024-12-29 17:59:41', '2025-01-07 21:46:41', 0, NULL, '00000000-0000-4000-8000-012000000001', '00000000-0000-4000-8000-049000000003'),
    ('00000000-0000-4000-8000-070000000002', '2024-12-31 09:06:54', '2025-01-01 12:54:54', 0, NULL, '00000000-0000-4000-8000-012000000002', '00000000-0000-4000-8000-049000000002'),
    ('00000000-0000-4000-8000-070000000003', '2025-01-02 01:13:07', '2025-01-04 05:02:07', 1, NULL, '00000000-0000-4000-8000-012000000003', '00000000-0000-4000-8000-049000000004');

-- blog articles-to-website-builder-module-widgets (relation)
INSERT INTO sps_blog_as_to_we_br_me_wt_v5b (id, created_at, updated_at, order_index, class_name, ae_id, we_br_me_wt_id) VALUES
    ('00000000-0000-4000-8000-071000000001', '2025-01-03 17:20:20', '2025-01-06 20:20:20', 0, NULL, '00000000-0000-4000-8000-012000000001', '00000000-0000-4000-8000-007000000004');

-- blog categories-to-articles (relation)
INSERT INTO sps_blog_cs_to_as_d3r (id, created_at, updated_at, order_index, class_name, cy_id, ae_id) VALUES
    ('00000000-0000-4000-8000-072000000001', '2025-01-05 09:27:33', '2025-01-09 12:28:33', 0, NULL, '00000000-0000-4000-8000-013000000001', '00000000-0000-4000-8000-012000000001'),
    ('00000000-0000-4000-8000-072000000002', '2025-01-07 01:34:46', '2025-01-12 04:36:46', 1, NULL, '00000000-0000-4000-8000-013000000001', '00000000-0000-4000-8000-012000000002'),
    ('00000000-0000-4000-8000-072000000003', '2025-01-08 17:41:59', '2025-01-14 20:44:59', 0, NULL, '00000000-0000-4000-8000-013000000002', '00000000-0000-4000-8000-012000000003');

-- blog categories-to-website-builder-module-widgets (relation)
INSERT INTO sps_blog_cs_to_we_br_me_wt_7d2 (id, created_at, updated_at, order_index, class_name, cy_id, we_br_me_wt_id) VALUES
    ('00000000-0000-4000-8000-073000000001', '2025-01-10 09:48:12', '2025-01-17 12:52:12', 0, NULL, '00000000-0000-4000-8000-013000000002', '00000000-0000-4000-8000-007000000003');

-- blog widgets-to-articles (relation)
INSERT INTO bg_ws_to_as_y18 (id, created_at, updated_at, order_index, class_name, wt_id, ae_id) VALUES
    ('00000000-0000-4000-8000-074000000001', '2025-01-12 01:55:25', '2025-01-20 05:00:25', 0, NULL, '00000000-0000-4000-8000-014000000001', '00000000-0000-4000-8000-012000000001'),
    ('00000000-0000-4000-8000-074000000002', '2025-01-13 17:02:38', '2025-01-22 20:08:38', 1, NULL, '00000000-0000-4000-8000-014000000001', '00000000-0000-4000-8000-012000000002'),
    ('00000000-0000-4000-8000-074000000003', '2025-01-15 09:09:51', '2025-01-16 12:16:51', 2, 'col-span-2', '00000000-0000-4000-8000-014000000001', '00000000-0000-4000-8000-012000000003');

-- blog widgets-to-categories (relation)
INSERT INTO bg_ws_to_cs_b03 (id, created_at, updated_at, order_index, class_name, wt_id, cy_id) VALUES
    ('00000000-0000-4000-8000-075000000001', '2025-01-17 01:16:04', '2025-01-19 04:24:04', 0, NULL, '00000000-0000-4000-8000-014000000001', '00000000-0000-4000-8000-013000000001'),
    ('00000000-0000-4000-8000-075000000002', '2025-01-18 17:23:17', '2025-01-21 20:32:17', 1, NULL, '00000000-0000-4000-8000-014000000001', '00000000-0000-4000-8000-013000000002');

-- ecommerce attribute-keys-to-attributes (relation)
INSERT INTO sps_ee_ae_ks_to_as_v3g (id, created_at, updated_at, order_index, class_name, ae_ky_id, ae_id) VALUES
    ('00000000-0000-4000-8000-076000000001', '2025-01-20 09:30:30', '2025-01-24 12:40:30', 0, NULL, '00000000-0000-4000-8000-016000000001', '00000000-0000-4000-8000-015000000001'),
    ('00000000-0000-4000-8000-076000000002', '2025-01-22 01:37:43', '2025-01-27 04:48:43', 0, NULL, '00000000-0000-4000-8000-016000000001', '00000000-0000-4000-8000-015000000002'),
    ('00000000-0000-4000-8000-076000000003', '2025-01-23 17:44:56', '2025-01-29 20:56:56', 0, NULL, '00000000-0000-4000-8000-016000000001', '00000000-0000-4000-8000-015000000003'),
    ('00000000-0000-4000-8000-076000000004', '2025-01-25 09:51:09', '2025-02-01 13:04:09', 0, NULL, '00000000-0000-4000-8000-016000000001', '00000000-0000-4000-8000-015000000007'),
    ('00000000-0000-4000-8000-076000000005', '2025-01-27 01:58:22', '2025-02-04 05:12:22', 0, NULL, '00000000-0000-4000-8000-016000000002', '00000000-0000-4000-8000-015000000004'),
    ('00000000-0000-4000-8000-076000000006', '2025-01-28 17:05:35', '2025-02-06 20:20:35', 0, NULL, '00000000-0000-4000-8000-016000000003', '00000000-0000-4000-8000-015000000005'),
    ('00000000-0000-4000-8000-076000000007', '2025-01-30 09:12:48', '2025-01-31 12:28:48', 0, NULL, '00000000-0000-4000-8000-016000000004', '00000000-0000-4000-8000-015000000006');

-- ecommerce attributes-to-billing-module-currencies (relation)
INSERT INTO sps_ee_as_to_bg_me_cs_6bg (id, created_at, updated_at, order_index, class_name, ae_id, bg_me_cy_id) VALUES
    ('00000000-0000-4000-8000-077000000001', '2025-02-01 01:19:01', '2025-02-03 04:36:01', 0, NULL, '00000000-0000-4000-8000-015000000001', '00000000-0000-4000-8000-038000000001'),
    ('00000000-0000-4000-8000-077000000002', '2025-02-02 17:26:14', '2025-02-05 20:44:14', 0, NULL, '00000000-0000-4000-8000-015000000002', '00000000-0000-4000-8000-038000000002'),
    ('00000000-0000-4000-8000-077000000003', '2025-02-04 09:33:27', '2025-02-08 12:52:27', 0, NULL, '00000000-0000-4000-8000-015000000003', '00000000-0000-4000-8000-038000000001'),
    ('00000000-0000-4000-8000-077000000004', '2025-02-06 01:40:40', '2025-02-11 05:00:40', 0, NULL, '00000000-0000-4000-8000-015000000007', '00000000-0000-4000-8000-038000000002');

-- ecommerce categories-to-file-storage-module-files (relation)
INSERT INTO sps_ee_cs_to_fe_se_me_fs_vr3 (id, created_at, updated_at, order_index, class_name, cy_id, fe_se_me_fe_id) VALUES
    ('00000000-0000-4000-8000-078000000001', '2025-02-07 17:47:53', '2025-02-13 21:08:53', 0, NULL, '00000000-0000-4000-8000-017000000001', '00000000-0000-4000-8000-049000000002');

-- ecommerce categories-to-products (relation)
INSERT INTO sps_ee_cs_to_ps_d4v (id, created_at, updated_at, order_index, class_name, cy_id, pt_id) VALUES
    ('00000000-0000-4000-8000-079000000001', '2025-02-09 09:54:06', '2025-02-16 13:16:06', 0, NULL, '00000000-0000-4000-8000-017000000001', '00000000-0000-4000-8000-019000000001'),
    ('00000000-0000-4000-8000-079000000002', '2025-02-11 01:01:19', '2025-02-19 04:24:19', 0, NULL, '00000000-0000-4000-8000-017000000002', '00000000-0000-4000-8000-019000000002');

-- ecommerce orders-to-billing-module-currencies (relation)
INSERT INTO sps_ee_os_to_bg_me_cs_b33 (id, created_at, updated_at, order_index, class_name, or_id, bg_me_cy_id) VALUES
    ('00000000-0000-4000-8000-080000000001', '2025-02-12 17:08:32', '2025-02-21 20:32:32', 0, NULL, '00000000-0000-4000-8000-018000000001', '00000000-0000-4000-8000-038000000001'),
    ('00000000-0000-4000-8000-080000000002', '2025-02-14 09:15:45', '2025-02-15 12:40:45', 0, NULL, '00000000-0000-4000-8000-018000000002', '00000000-0000-4000-8000-038000000001'),
    ('00000000-0000-4000-8000-080000000003', '2025-02-16 01:22:58', '2025-02-18 04:48:58', 0, NULL, '00000000-0000-4000-8000-018000000003', '00000000-0000-4000-8000-038000000001'),
    ('00000000-0000-4000-8000-080000000004', '2025-02-17 17:29:11', '2025-02-20 20:56:11', 0, NULL, '00000000-0000-4000-8000-018000000004', '00000000-0000-4000-8000-038000000002'),
    ('00000000-0000-4000-8000-080000000005', '2025-02-19 09:36:24', '2025-02-23 13:04:24', 0, NULL, '00000000-0000-4000-8000-018000000005', '00000000-0000-4000-8000-038000000001'),
    ('00000000-0000-4000-8000-080000000006', '2025-02-21 01:43:37', '2025-02-26 05:12:37', 0, NULL, '00000000-0000-4000-8000-018000000006', '00000000-0000-4000-8000-038000000001'),
    ('00000000-0000-4000-8000-080000000007', '2025-02-22 17:50:50', '2025-02-28 21:20:50', 0, NULL, '00000000-0000-4000-8000-018000000007', '00000000-0000-4000-8000-038000000001');

-- ecommerce orders-to-billing-module-payment-intents (relation)
INSERT INTO sps_ee_os_to_bg_me_pt_is_cvb (id, created_at, updated_at, order_index, class_name, or_id, bg_me_pt_it_id) VALUES
    ('00000000-0000-4000-8000-081000000001', '2025-02-24 09:57:03', '2025-03-03 13:28:03', 0, NULL, '00000000-0000-4000-8000-018000000002', '00000000-0000-4000-8000-040000000002'),
    ('00000000-0000-4000-8000-081000000002', '2025-02-26 01:04:16', '2025-03-06 04:36:16', 0, NULL, '00000000-0000-4000-8000-018000000003', '00000000-0000-4000-8000-040000000001'),
    ('00000000-0000-4000-8000-081000000003', '2025-02-27 17:11:29', '2025-03-08 20:44:29', 0, NULL, '00000000-0000-4000-8000-018000000004', '00000000-0000-4000-8000-040000000005'),
    ('00000000-0000-4000-8000-081000000004', '2025-03-01 09:18:42', '2025-03-02 12:52:42', 0, NULL, '00000000-0000-4000-8000-018000000005', '00000000-0000-4000-8000-040000000004'),
    ('00000000-0000-4000-8000-081000000005', '2025-03-03 01:25:55', '2025-03-05 05:00:55', 0, NULL, '00000000-0000-4000-8000-018000000006', '00000000-0000-4000-8000-040000000006'),
    ('00000000-0000-4000-8000-081000000006', '2025-03-04 17:32:08', '2025-03-07 21:08:08', 0, NULL, '00000000-0000-4000-8000-018000000007', '00000000-0000-4000-8000-040000000003');

-- ecommerce orders-to-file-storage-module-files (relation)
INSERT INTO sps_ee_os_to_fe_se_me_fs_b06 (id, created_at, updated_at, order_index, class_name, or_id, fe_se_me_fe_id, variant) VALUES
    ('00000000-0000-4000-8000-082000000001', '2025-03-06 09:39:21', '2025-03-10 13:16:21', 0, NULL, '00000000-0000-4000-8000-018000000003', '00000000-0000-4000-8000-049000000005', 'receipt-default'),
    ('00000000-0000-4000-8000-082000000002', '2025-03-08 01:46:34', '2025-03-13 05:24:34', 1, NULL, '00000000-0000-4000-8000-018000000004', '00000000-0000-4000-8000-049000000003', 'attachment-default');

-- ecommerce orders-to-products (relation)
INSERT INTO sps_ee_os_to_ps_d4c (id, created_at, updated_at, order_index, class_name, or_id, pt_id, quantity) VALUES
    ('00000000-0000-4000-8000-083000000001', '2025-03-09 17:53:47', '2025-03-15 21:32:47', 0, NULL, '00000000-0000-4000-8000-018000000001', '00000000-0000-4000-8000-019000000001', 1),
    ('00000000-0000-4000-8000-083000000002', '2025-03-11 09:00:00', '2025-03-18 12:40:00', 0, NULL, '00000000-0000-4000-8000-018000000002', '00000000-0000-4000-8000-019000000001', 1),
    ('00000000-0000-4000-8000-083000000003', '2025-03-13 01:07:13', '2025-03-21 04:48:13', 0, NULL, '00000000-0000-4000-8000-018000000003', '00000000-0000-4000-8000-019000000001', 2),
    ('00000000-0000-4000-8000-083000000004', '2025-03-14 17:14:26', '2025-03-23 20:56:26', 0, NULL, '00000000-0000-4000-8000-018000000004', '00000000-0000-4000-8000-019000000001', 2),
    ('00000000-0000-4000-8000-083000000005', '2025-03-16 09:21:39', '2025-03-17 13:04:39', 0, NULL, '00000000-0000-4000-8000-018000000005', '00000000-0000-4000-8000-019000000002', 1),
    ('00000000-0000-4000-8000-083000000006', '2025-03-18 01:28:52', '2025-03-20 05:12:52', 0, NULL, '00000000-0000-4000-8000-018000000006', '00000000-0000-4000-8000-019000000002', 1),
    ('00000000-0000-4000-8000-083000000007', '2025-03-19 17:35:05', '2025-03-22 21:20:05', 0, NULL, '00000000-0000-4000-8000-018000000007', '00000000-0000-4000-8000-019000000001', 1);

-- ecommerce orders-to-social-module-chats (relation)
INSERT INTO sps_ee_os_to_sl_me_cs_lg2 (id, created_at, updated_at, order_index, class_name, or_id, sl_me_ct_id) VALUES
    ('00000000-0000-4000-8000-084000000001', '2025-03-21 09:42:18', '2025-03-25 13:28:18', 0, NULL, '00000000-0000-4000-8000-018000000003', '00000000-0000-4000-8000-030000000001');

-- ecommerce products-to-attributes (relation)
INSERT INTO sps_ee_ps_to_as_c2s (id, created_at, updated_at, order_index, class_name, pt_id, ae_id) VALUES
    ('00000000-0000-4000-8000-085000000001', '2025-03-23 01:49:31', '2025-03-28 05:36:31', 0, NULL, '00000000-0000-4000-8000-019000000001', '00000000-0000-4000-8000-015000000001'),
    ('00000000-0000-4000-8000-085000000002', '2025-03-24 17:56:44', '2025-03-30 21:44:44', 0, NULL, '00000000-0000-4000-8000-019000000001', '00000000-0000-4000-8000-015000000002'),
    ('00000000-0000-4000-8000-085000000003', '2025-03-26 09:03:57', '2025-04-02 12:52:57', 0, NULL, '00000000-0000-4000-8000-019000000001', '00000000-0000-4000-8000-015000000005'),
    ('00000000-0000-4000-8000-085000000004', '2025-03-28 01:10:10', '2025-04-05 04:10:10', 0, NULL, '00000000-0000-4000-8000-019000000002', '00000000-0000-4000-8000-015000000003'),
    ('00000000-0000-4000-8000-085000000005', '2025-03-29 17:17:23', '2025-04-07 20:18:23', 0, NULL, '00000000-0000-4000-8000-019000000002', '00000000-0000-4000-8000-015000000007'),
    ('00000000-0000-4000-8000-085000000006', '2025-03-31 09:24:36', '2025-04-01 12:26:36', 0, NULL, '00000000-0000-4000-8000-019000000002', '00000000-0000-4000-8000-015000000004');

-- ecommerce products-to-file-storage-module-files (relation)
INSERT INTO sps_ee_ps_to_fe_se_me_fs_3cv (id, created_at, updated_at, order_index, class_name, pt_id, fe_se_me_fe_id, variant) VALUES
    ('00000000-0000-4000-8000-086000000001', '2025-04-02 01:31:49', '2025-04-04 04:34:49', 0, NULL, '00000000-0000-4000-8000-019000000001', '00000000-0000-4000-8000-049000000002', DEFAULT),
    ('00000000-0000-4000-8000-086000000002', '2025-04-03 17:38:02', '2025-04-06 20:42:02', 1, NULL, '00000000-0000-4000-8000-019000000001', '00000000-0000-4000-8000-049000000003', 'attachment-default'),
    ('00000000-0000-4000-8000-086000000003', '2025-04-05 09:45:15', '2025-04-09 12:50:15', 0, 'object-contain', '00000000-0000-4000-8000-019000000002', '00000000-0000-4000-8000-049000000003', DEFAULT);

-- ecommerce products-to-website-builder-module-widgets (relation)
INSERT INTO sps_ee_ps_to_we_br_me_ws_v3w (id, created_at, updated_at, order_index, class_name, pt_id, wt_br_me_wt_id) VALUES
    ('00000000-0000-4000-8000-087000000001', '2025-04-07 01:52:28', '2025-04-12 04:58:28', 0, NULL, '00000000-0000-4000-8000-019000000001', '00000000-0000-4000-8000-007000000004');

-- ecommerce stores-to-attributes (relation)
INSERT INTO sps_ee_ss_to_as_cv3 (id, created_at, updated_at, order_index, class_name, se_id, ae_id) VALUES
    ('00000000-0000-4000-8000-088000000001', '2025-04-08 17:59:41', '2025-04-14 21:06:41', 0, NULL, '00000000-0000-4000-8000-020000000001', '00000000-0000-4000-8000-015000000006');

-- ecommerce stores-to-orders (relation)
INSERT INTO sps_ee_ss_to_os_v03 (id, created_at, updated_at, order_index, class_name, se_id, or_id) VALUES
    ('00000000-0000-4000-8000-089000000001', '2025-04-10 09:06:54', '2025-04-17 12:14:54', 0, NULL, '00000000-0000-4000-8000-020000000001', '00000000-0000-4000-8000-018000000001'),
    ('00000000-0000-4000-8000-089000000002', '2025-04-12 01:13:07', '2025-04-20 04:22:07', 1, NULL, '00000000-0000-4000-8000-020000000001', '00000000-0000-4000-8000-018000000002'),
    ('00000000-0000-4000-8000-089000000003', '2025-04-13 17:20:20', '2025-04-22 20:30:20', 2, NULL, '00000000-0000-4000-8000-020000000001', '00000000-0000-4000-8000-018000000003'),
    ('00000000-0000-4000-8000-089000000004', '2025-04-15 09:27:33', '2025-04-16 12:38:33', 3, NULL, '00000000-0000-4000-8000-020000000001', '00000000-0000-4000-8000-018000000004'),
    ('00000000-0000-4000-8000-089000000005', '2025-04-17 01:34:46', '2025-04-19 04:46:46', 4, NULL, '00000000-0000-4000-8000-020000000001', '00000000-0000-4000-8000-018000000005'),
    ('00000000-0000-4000-8000-089000000006', '2025-04-18 17:41:59', '2025-04-21 20:54:59', 5, NULL, '00000000-0000-4000-8000-020000000001', '00000000-0000-4000-8000-018000000006'),
    ('00000000-0000-4000-8000-089000000007', '2025-04-20 09:48:12', '2025-04-24 13:02:12', 6, NULL, '00000000-0000-4000-8000-020000000001', '00000000-0000-4000-8000-018000000007');

-- ecommerce stores-to-products (relation)
INSERT INTO sps_ee_ss_to_ps_vn7 (id, created_at, updated_at, order_index, class_name, se_id, pt_id, sku) VALUES
    ('00000000-0000-4000-8000-090000000001', '2025-04-22 01:55:25', '2025-04-27 05:10:25', 0, NULL, '00000000-0000-4000-8000-020000000001', '00000000-0000-4000-8000-019000000001', 'FP-OAK-001'),
    ('00000000-0000-4000-8000-090000000002', '2025-04-23 17:02:38', '2025-04-29 20:18:38', 1, NULL, '00000000-0000-4000-8000-020000000001', '00000000-0000-4000-8000-019000000002', 'FP-SUB-MONTH-001');

-- ecommerce stores-to-products-to-attributes (relation)
INSERT INTO sps_ee_ss_to_ps_to_as_v04 (id, created_at, updated_at, order_index, class_name, ss_to_ps_id, ae_id) VALUES
    ('00000000-0000-4000-8000-091000000001', '2025-04-25 09:09:51', '2025-05-02 12:26:51', 0, NULL, '00000000-0000-4000-8000-090000000001', '00000000-0000-4000-8000-015000000005'),
    ('00000000-0000-4000-8000-091000000002', '2025-04-27 01:16:04', '2025-05-05 04:34:04', 1, NULL, '00000000-0000-4000-8000-090000000002', '00000000-0000-4000-8000-015000000004');

-- ecommerce widgets-to-categories (relation)
INSERT INTO sps_ee_ws_to_cs_cv3 (id, created_at, updated_at, order_index, class_name, wt_id, cy_id) VALUES
    ('00000000-0000-4000-8000-092000000001', '2025-04-28 17:23:17', '2025-05-07 20:42:17', 0, NULL, '00000000-0000-4000-8000-021000000001', '00000000-0000-4000-8000-017000000001'),
    ('00000000-0000-4000-8000-092000000002', '2025-04-30 09:30:30', '2025-05-01 12:50:30', 1, NULL, '00000000-0000-4000-8000-021000000001', '00000000-0000-4000-8000-017000000002');

-- ecommerce widgets-to-products (relation)
INSERT INTO sps_ee_ws_to_ps_b04 (id, created_at, updated_at, order_index, class_name, wt_id, pt_id) VALUES
    ('00000000-0000-4000-8000-093000000001', '2025-05-02 01:37:43', '2025-05-04 04:58:43', 0, NULL, '00000000-0000-4000-8000-021000000001', '00000000-0000-4000-8000-019000000001'),
    ('00000000-0000-4000-8000-093000000002', '2025-05-03 17:44:56', '2025-05-06 21:06:56', 1, 'ring-2 ring-green-600', '00000000-0000-4000-8000-021000000001', '00000000-0000-4000-8000-019000000002');

-- ecommerce widgets-to-stores (relation)
INSERT INTO sps_ee_ws_to_ss_cv3 (id, created_at, updated_at, order_index, class_name, wt_id, se_id) VALUES
    ('00000000-0000-4000-8000-094000000001', '2025-05-05 09:51:09', '2025-05-09 13:14:09', 0, NULL, '00000000-0000-4000-8000-021000000003', '00000000-0000-4000-8000-020000000001');

-- rbac roles-to-actions (relation)
INSERT INTO sps_rc_rs_to_as_mz2 (id, created_at, updated_at, order_index, class_name, re_id, an_id, condition) VALUES
    ('00000000-0000-4000-8000-095000000001', '2025-05-07 01:58:22', '2025-05-12 05:22:22', 0, NULL, '00000000-0000-4000-8000-024000000002', '00000000-0000-4000-8000-022000000001', DEFAULT),
    ('00000000-0000-4000-8000-095000000002', '2025-05-08 17:05:35', '2025-05-14 20:30:35', 0, NULL, '00000000-0000-4000-8000-024000000003', '00000000-0000-4000-8000-022000000002', '{"blog.articles.slug":{"eq":"why-we-plant-oaks"}}'),
    ('00000000-0000-4000-8000-095000000003', '2025-05-10 09:12:48', '2025-05-17 12:38:48', 1, 'legacy-grant', '00000000-0000-4000-8000-024000000001', '00000000-0000-4000-8000-022000000003', DEFAULT);

-- rbac roles-to-ecommerce-module-products (relation)
INSERT INTO sps_rc_rs_to_ee_me_ps_cv3 (id, created_at, updated_at, order_index, class_name, re_id, ee_me_pt_id) VALUES
    ('00000000-0000-4000-8000-096000000001', '2025-05-12 01:19:01', '2025-05-20 04:46:01', 0, NULL, '00000000-0000-4000-8000-024000000003', '00000000-0000-4000-8000-019000000002');

-- rbac subjects-to-billing-module-payment-intents (relation)
INSERT INTO sps_rc_ss_to_bg_me_pt_is_fv3 (id, created_at, updated_at, order_index, class_name, st_id, bg_me_pt_it_id) VALUES
    ('00000000-0000-4000-8000-097000000001', '2025-05-13 17:26:14', '2025-05-22 20:54:14', 0, NULL, '00000000-0000-4000-8000-026000000002', '00000000-0000-4000-8000-040000000001'),
    ('00000000-0000-4000-8000-097000000002', '2025-05-15 09:33:27', '2025-05-16 13:02:27', 0, NULL, '00000000-0000-4000-8000-026000000002', '00000000-0000-4000-8000-040000000002'),
    ('00000000-0000-4000-8000-097000000003', '2025-05-17 01:40:40', '2025-05-19 05:10:40', 0, NULL, '00000000-0000-4000-8000-026000000004', '00000000-0000-4000-8000-040000000004'),
    ('00000000-0000-4000-8000-097000000004', '2025-05-18 17:47:53', '2025-05-21 21:18:53', 0, NULL, '00000000-0000-4000-8000-026000000003', '00000000-0000-4000-8000-040000000005');

-- rbac subjects-to-blog-module-articles (relation)
INSERT INTO sps_rc_ss_to_bg_me_as_b03 (id, created_at, updated_at, order_index, class_name, st_id, bg_me_ae_id) VALUES
    ('00000000-0000-4000-8000-098000000001', '2025-05-20 09:54:06', '2025-05-24 13:26:06', 0, NULL, '00000000-0000-4000-8000-026000000001', '00000000-0000-4000-8000-012000000001'),
    ('00000000-0000-4000-8000-098000000002', '2025-05-22 01:01:19', '2025-05-27 04:34:19', 1, NULL, '00000000-0000-4000-8000-026000000001', '00000000-0000-4000-8000-012000000002');

-- rbac subjects-to-ecommerce-module-orders (relation)
INSERT INTO sps_rc_ss_to_ee_me_os_oq2 (id, created_at, updated_at, order_index, class_name, st_id, ee_me_or_id) VALUES
    ('00000000-0000-4000-8000-099000000001', '2025-05-23 17:08:32', '2025-05-29 20:42:32', 0, NULL, '00000000-0000-4000-8000-026000000002', '00000000-0000-4000-8000-018000000001'),
    ('00000000-0000-4000-8000-099000000002', '2025-05-25 09:15:45', '2025-06-01 12:50:45', 0, NULL, '00000000-0000-4000-8000-026000000002', '00000000-0000-4000-8000-018000000002'),
    ('00000000-0000-4000-8000-099000000003', '2025-05-27 01:22:58', '2025-06-04 04:58:58', 0, NULL, '00000000-0000-4000-8000-026000000002', '00000000-0000-4000-8000-018000000003'),
    ('00000000-0000-4000-8000-099000000004', '2025-05-28 17:29:11', '2025-06-06 21:06:11', 0, NULL, '00000000-0000-4000-8000-026000000003', '00000000-0000-4000-8000-018000000004'),
    ('00000000-0000-4000-8000-099000000005', '2025-05-30 09:36:24', '2025-05-31 13:14:24', 0, NULL, '00000000-0000-4000-8000-026000000004', '00000000-0000-4000-8000-018000000005'),
    ('00000000-0000-4000-8000-099000000006', '2025-06-01 01:43:37', '2025-06-03 05:22:37', 0, NULL, '00000000-0000-4000-8000-026000000004', '00000000-0000-4000-8000-018000000006'),
    ('00000000-0000-4000-8000-099000000007', '2025-06-02 17:50:50', '2025-06-05 21:30:50', 0, NULL, '00000000-0000-4000-8000-026000000001', '00000000-0000-4000-8000-018000000007');

-- rbac subjects-to-ecommerce-module-products (relation)
INSERT INTO rc_ss_to_ee_me_ps_whq (id, created_at, updated_at, order_index, class_name, st_id, ee_me_pt_id) VALUES
    ('00000000-0000-4000-8000-100000000001', '2025-06-04 09:57:03', '2025-06-08 13:38:03', 0, NULL, '00000000-0000-4000-8000-026000000004', '00000000-0000-4000-8000-019000000002');

-- rbac subjects-to-identities (relation)
INSERT INTO sps_rc_ss_to_is_h58 (id, created_at, updated_at, order_index, class_name, st_id, iy_id) VALUES
    ('00000000-0000-4000-8000-101000000001', '2025-06-06 01:04:16', '2025-06-11 04:46:16', 0, NULL, '00000000-0000-4000-8000-026000000001', '00000000-0000-4000-8000-023000000001'),
    ('00000000-0000-4000-8000-101000000002', '2025-06-07 17:11:29', '2025-06-13 20:54:29', 0, NULL, '00000000-0000-4000-8000-026000000002', '00000000-0000-4000-8000-023000000002'),
    ('00000000-0000-4000-8000-101000000003', '2025-06-09 09:18:42', '2025-06-16 13:02:42', 0, NULL, '00000000-0000-4000-8000-026000000003', '00000000-0000-4000-8000-023000000003'),
    ('00000000-0000-4000-8000-101000000004', '2025-06-11 01:25:55', '2025-06-19 05:10:55', 0, NULL, '00000000-0000-4000-8000-026000000004', '00000000-0000-4000-8000-023000000004'),
    ('00000000-0000-4000-8000-101000000005', '2025-06-12 17:32:08', '2025-06-21 21:18:08', 1, NULL, '00000000-0000-4000-8000-026000000004', '00000000-0000-4000-8000-023000000005');

-- rbac subjects-to-notification-module-topics (relation)
INSERT INTO sps_rc_ss_to_nn_me_ts_cfg (id, created_at, updated_at, order_index, class_name, st_id, nn_me_tc_id) VALUES
    ('00000000-0000-4000-8000-102000000001', '2025-06-14 09:39:21', '2025-06-15 13:26:21', 0, NULL, '00000000-0000-4000-8000-026000000001', '00000000-0000-4000-8000-044000000002'),
    ('00000000-0000-4000-8000-102000000002', '2025-06-16 01:46:34', '2025-06-18 05:34:34', 0, NULL, '00000000-0000-4000-8000-026000000002', '00000000-0000-4000-8000-044000000001');

-- rbac subjects-to-roles (relation)
INSERT INTO sps_rc_ss_to_rs_3nw (id, created_at, updated_at, order_index, class_name, st_id, re_id) VALUES
    ('00000000-0000-4000-8000-103000000001', '2025-06-17 17:53:47', '2025-06-20 21:42:47', 0, NULL, '00000000-0000-4000-8000-026000000001', '00000000-0000-4000-8000-024000000002'),
    ('00000000-0000-4000-8000-103000000002', '2025-06-19 09:00:00', '2025-06-23 12:00:00', 1, NULL, '00000000-0000-4000-8000-026000000001', '00000000-0000-4000-8000-024000000001'),
    ('00000000-0000-4000-8000-103000000003', '2025-06-21 01:07:13', '2025-06-26 04:08:13', 0, NULL, '00000000-0000-4000-8000-026000000002', '00000000-0000-4000-8000-024000000001'),
    ('00000000-0000-4000-8000-103000000004', '2025-06-22 17:14:26', '2025-06-28 20:16:26', 0, NULL, '00000000-0000-4000-8000-026000000003', '00000000-0000-4000-8000-024000000001'),
    ('00000000-0000-4000-8000-103000000005', '2025-06-24 09:21:39', '2025-07-01 12:24:39', 0, NULL, '00000000-0000-4000-8000-026000000004', '00000000-0000-4000-8000-024000000001'),
    ('00000000-0000-4000-8000-103000000006', '2025-06-26 01:28:52', '2025-07-04 04:32:52', 1, NULL, '00000000-0000-4000-8000-026000000004', '00000000-0000-4000-8000-024000000003');

-- rbac subjects-to-sessions (relation)
INSERT INTO sps_rc_ss_to_ss_1eh (id, created_at, updated_at, order_index, class_name, st_id, sn_id) VALUES
    ('00000000-0000-4000-8000-104000000001', '2025-06-27 17:35:05', '2025-07-06 20:40:05', 0, NULL, '00000000-0000-4000-8000-026000000001', '00000000-0000-4000-8000-025000000001');

-- rbac subjects-to-social-module-profiles (relation)
INSERT INTO rc_ss_to_sl_me_ps_ges (id, created_at, updated_at, order_index, class_name, st_id, sl_me_pe_id) VALUES
    ('00000000-0000-4000-8000-105000000001', '2025-06-29 09:42:18', '2025-06-30 12:48:18', 0, NULL, '00000000-0000-4000-8000-026000000001', '00000000-0000-4000-8000-032000000001');

-- social attribute-keys-to-attributes (relation)
INSERT INTO sl_ae_ks_to_as_b02 (id, created_at, updated_at, order_index, class_name, ae_ky_id, ae_id) VALUES
    ('00000000-0000-4000-8000-106000000001', '2025-07-01 01:49:31', '2025-07-03 04:56:31', 0, NULL, '00000000-0000-4000-8000-029000000001', '00000000-0000-4000-8000-028000000001'),
    ('00000000-0000-4000-8000-106000000002', '2025-07-02 17:56:44', '2025-07-05 21:04:44', 1, NULL, '00000000-0000-4000-8000-029000000001', '00000000-0000-4000-8000-028000000002');

-- social chats-to-messages (relation)
INSERT INTO sl_cs_to_ms_e6r (id, created_at, updated_at, order_index, class_name, ct_id, me_id) VALUES
    ('00000000-0000-4000-8000-107000000001', '2025-07-04 09:03:57', '2025-07-08 12:12:57', 0, NULL, '00000000-0000-4000-8000-030000000001', '00000000-0000-4000-8000-031000000001'),
    ('00000000-0000-4000-8000-107000000002', '2025-07-06 01:10:10', '2025-07-11 04:20:10', 1, NULL, '00000000-0000-4000-8000-030000000001', '00000000-0000-4000-8000-031000000002'),
    ('00000000-0000-4000-8000-107000000003', '2025-07-07 17:17:23', '2025-07-13 20:28:23', 0, NULL, '00000000-0000-4000-8000-030000000002', '00000000-0000-4000-8000-031000000003');

-- social messages-to-file-storage-module-files (relation)
INSERT INTO sl_ms_to_fe_se_me_fs_3v0 (id, created_at, updated_at, order_index, class_name, me_id, fe_se_me_fe_id) VALUES
    ('00000000-0000-4000-8000-108000000001', '2025-07-09 09:24:36', '2025-07-16 12:36:36', 0, NULL, '00000000-0000-4000-8000-031000000002', '00000000-0000-4000-8000-049000000006'),
    ('00000000-0000-4000-8000-108000000002', '2025-07-09 09:25:01', '2025-07-16 12:36:40', 1, NULL, '00000000-0000-4000-8000-031000000002', '00000000-0000-4000-8000-049000000002');

-- social profiles-to-attributes (relation)
INSERT INTO sl_ps_to_as_v06 (id, created_at, updated_at, order_index, class_name, pe_id, ae_id) VALUES
    ('00000000-0000-4000-8000-109000000001', '2025-07-11 01:31:49', '2025-07-19 04:44:49', 0, NULL, '00000000-0000-4000-8000-032000000001', '00000000-0000-4000-8000-028000000001'),
    ('00000000-0000-4000-8000-109000000002', '2025-07-12 17:38:02', '2025-07-21 20:52:02', 1, NULL, '00000000-0000-4000-8000-032000000001', '00000000-0000-4000-8000-028000000002');

-- social profiles-to-chats (relation)
INSERT INTO sl_ps_to_cs_m2s (id, created_at, updated_at, order_index, class_name, pe_id, ct_id) VALUES
    ('00000000-0000-4000-8000-110000000001', '2025-07-14 09:45:15', '2025-07-15 13:00:15', 0, NULL, '00000000-0000-4000-8000-032000000001', '00000000-0000-4000-8000-030000000001'),
    ('00000000-0000-4000-8000-110000000002', '2025-07-16 01:52:28', '2025-07-18 05:08:28', 1, NULL, '00000000-0000-4000-8000-032000000002', '00000000-0000-4000-8000-030000000001'),
    ('00000000-0000-4000-8000-110000000003', '2025-07-17 17:59:41', '2025-07-20 21:16:41', 0, NULL, '00000000-0000-4000-8000-032000000001', '00000000-0000-4000-8000-030000000002');

-- social profiles-to-ecommerce-module-products (relation)
INSERT INTO sl_pe_to_ee_me_ps_4b2 (id, created_at, updated_at, order_index, class_name, pe_id, ee_me_pt_id) VALUES
    ('00000000-0000-4000-8000-111000000001', '2025-07-19 09:06:54', '2025-07-23 12:24:54', 0, NULL, '00000000-0000-4000-8000-032000000001', '00000000-0000-4000-8000-019000000001');

-- social profiles-to-file-storage-module-files (relation)
INSERT INTO sl_ps_to_fe_se_me_fs_u5o (id, created_at, updated_at, order_index, class_name, pe_id, fe_se_me_fe_id) VALUES
    ('00000000-0000-4000-8000-112000000001', '2025-07-21 01:13:07', '2025-07-26 04:32:07', 0, 'rounded-full', '00000000-0000-4000-8000-032000000001', '00000000-0000-4000-8000-049000000002');

-- social profiles-to-messages (relation)
INSERT INTO sl_ps_to_ms_b03 (id, created_at, updated_at, order_index, class_name, pe_id, me_id, is_read) VALUES
    ('00000000-0000-4000-8000-113000000001', '2025-07-22 17:20:20', '2025-07-28 20:40:20', 0, NULL, '00000000-0000-4000-8000-032000000001', '00000000-0000-4000-8000-031000000001', true),
    ('00000000-0000-4000-8000-113000000002', '2025-07-24 09:27:33', '2025-07-31 12:48:33', 0, NULL, '00000000-0000-4000-8000-032000000002', '00000000-0000-4000-8000-031000000002', false),
    ('00000000-0000-4000-8000-113000000003', '2025-07-26 01:34:46', '2025-08-03 04:56:46', 0, NULL, '00000000-0000-4000-8000-032000000001', '00000000-0000-4000-8000-031000000003', false);

-- social profiles-to-website-builder-module-widgets (relation)
INSERT INTO sl_ps_to_we_br_me_ws_q0l (id, created_at, updated_at, order_index, class_name, pe_id, we_br_me_wt_id) VALUES
    ('00000000-0000-4000-8000-114000000001', '2025-07-27 17:41:59', '2025-08-05 21:04:59', 0, NULL, '00000000-0000-4000-8000-032000000001', '00000000-0000-4000-8000-007000000004');

-- crm forms-to-inputs (relation)
INSERT INTO sps_cm_fs_to_is_b7h (id, created_at, updated_at, order_index, class_name, it_id, fm_id) VALUES
    ('00000000-0000-4000-8000-115000000001', '2025-07-29 09:48:12', '2025-07-30 13:12:12', 0, NULL, '00000000-0000-4000-8000-035000000001', '00000000-0000-4000-8000-034000000001'),
    ('00000000-0000-4000-8000-115000000002', '2025-07-31 01:55:25', '2025-08-02 05:20:25', 1, 'col-span-2', '00000000-0000-4000-8000-035000000002', '00000000-0000-4000-8000-034000000001'),
    ('00000000-0000-4000-8000-115000000003', '2025-08-01 17:02:38', '2025-08-04 20:28:38', 2, NULL, '00000000-0000-4000-8000-035000000003', '00000000-0000-4000-8000-034000000001');

-- crm forms-to-requests (relation)
INSERT INTO sps_cm_fs_to_rs_b42 (id, created_at, updated_at, order_index, class_name, fm_id, rt_id) VALUES
    ('00000000-0000-4000-8000-116000000001', '2025-08-03 09:09:51', '2025-08-07 12:36:51', 0, NULL, '00000000-0000-4000-8000-034000000001', '00000000-0000-4000-8000-036000000001'),
    ('00000000-0000-4000-8000-116000000002', '2025-08-05 01:16:04', '2025-08-10 04:44:04', 1, NULL, '00000000-0000-4000-8000-034000000001', '00000000-0000-4000-8000-036000000002');

-- crm widgets-to-forms (relation)
INSERT INTO sps_cm_ws_to_fs_vf2 (id, created_at, updated_at, order_index, class_name, wt_id, fm_id) VALUES
    ('00000000-0000-4000-8000-117000000001', '2025-08-06 17:23:17', '2025-08-12 20:52:17', 0, NULL, '00000000-0000-4000-8000-037000000001', '00000000-0000-4000-8000-034000000001');

-- billing payment-intents-to-currencies (relation)
INSERT INTO sps_bg_pt_is_to_cs_cg0 (id, created_at, updated_at, order_index, class_name, pt_it_id, cy_id) VALUES
    ('00000000-0000-4000-8000-118000000001', '2025-08-08 09:30:30', '2025-08-15 13:00:30', 0, NULL, '00000000-0000-4000-8000-040000000001', '00000000-0000-4000-8000-038000000001'),
    ('00000000-0000-4000-8000-118000000002', '2025-08-10 01:37:43', '2025-08-18 05:08:43', 0, NULL, '00000000-0000-4000-8000-040000000002', '00000000-0000-4000-8000-038000000001'),
    ('00000000-0000-4000-8000-118000000003', '2025-08-11 17:44:56', '2025-08-20 21:16:56', 0, NULL, '00000000-0000-4000-8000-040000000003', '00000000-0000-4000-8000-038000000001'),
    ('00000000-0000-4000-8000-118000000004', '2025-08-13 09:51:09', '2025-08-14 13:24:09', 0, NULL, '00000000-0000-4000-8000-040000000004', '00000000-0000-4000-8000-038000000001'),
    ('00000000-0000-4000-8000-118000000005', '2025-08-15 01:58:22', '2025-08-17 05:32:22', 0, NULL, '00000000-0000-4000-8000-040000000005', '00000000-0000-4000-8000-038000000002'),
    ('00000000-0000-4000-8000-118000000006', '2025-08-16 17:05:35', '2025-08-19 20:40:35', 0, NULL, '00000000-0000-4000-8000-040000000006', '00000000-0000-4000-8000-038000000001');

-- billing payment-intents-to-invoices (relation)
INSERT INTO sps_bg_pt_is_to_is_lbb (id, created_at, updated_at, order_index, class_name, pt_it_id, ie_id) VALUES
    ('00000000-0000-4000-8000-119000000001', '2025-08-18 09:12:48', '2025-08-22 12:48:48', 0, NULL, '00000000-0000-4000-8000-040000000001', '00000000-0000-4000-8000-039000000001'),
    ('00000000-0000-4000-8000-119000000002', '2025-08-20 01:19:01', '2025-08-25 04:56:01', 0, NULL, '00000000-0000-4000-8000-040000000002', '00000000-0000-4000-8000-039000000003'),
    ('00000000-0000-4000-8000-119000000003', '2025-08-21 17:26:14', '2025-08-27 21:04:14', 1, NULL, '00000000-0000-4000-8000-040000000002', '00000000-0000-4000-8000-039000000002'),
    ('00000000-0000-4000-8000-119000000004', '2025-08-23 09:33:27', '2025-08-30 13:12:27', 0, NULL, '00000000-0000-4000-8000-040000000003', '00000000-0000-4000-8000-039000000004'),
    ('00000000-0000-4000-8000-119000000005', '2025-08-25 01:40:40', '2025-09-02 05:20:40', 0, NULL, '00000000-0000-4000-8000-040000000004', '00000000-0000-4000-8000-039000000005'),
    ('00000000-0000-4000-8000-119000000006', '2025-08-26 17:47:53', '2025-09-04 21:28:53', 0, NULL, '00000000-0000-4000-8000-040000000005', '00000000-0000-4000-8000-039000000006'),
    ('00000000-0000-4000-8000-119000000007', '2025-08-28 09:54:06', '2025-08-29 13:36:06', 0, NULL, '00000000-0000-4000-8000-040000000006', '00000000-0000-4000-8000-039000000007');

-- notification notifications-to-templates (relation)
INSERT INTO sps_nn_ns_to_ts_g3c (id, created_at, updated_at, order_index, class_name, nn_id, te_id) VALUES
    ('00000000-0000-4000-8000-120000000001', '2025-08-30 01:01:19', '2025-09-01 04:44:19', 0, NULL, '00000000-0000-4000-8000-042000000001', '00000000-0000-4000-8000-043000000002'),
    ('00000000-0000-4000-8000-120000000002', '2025-08-31 17:08:32', '2025-09-03 20:52:32', 0, NULL, '00000000-0000-4000-8000-042000000002', '00000000-0000-4000-8000-043000000007');

-- notification topics-to-notifications (relation)
INSERT INTO sps_nn_ts_to_ns_v8d (id, created_at, updated_at, order_index, class_name, tc_id, nn_id) VALUES
    ('00000000-0000-4000-8000-121000000001', '2025-09-02 09:15:45', '2025-09-06 13:00:45', 0, NULL, '00000000-0000-4000-8000-044000000001', '00000000-0000-4000-8000-042000000001'),
    ('00000000-0000-4000-8000-121000000002', '2025-09-04 01:22:58', '2025-09-09 05:08:58', 1, NULL, '00000000-0000-4000-8000-044000000001', '00000000-0000-4000-8000-042000000002');

-- file-storage widgets-to-files (relation)
INSERT INTO sps_f_s_ws_to_fs_ocw (id, created_at, updated_at, order_index, class_name, wt_id, fe_id) VALUES
    ('00000000-0000-4000-8000-122000000001', '2025-09-05 17:29:11', '2025-09-11 21:16:11', 0, NULL, '00000000-0000-4000-8000-050000000001', '00000000-0000-4000-8000-049000000003'),
    ('00000000-0000-4000-8000-122000000002', '2025-09-07 09:36:24', '2025-09-14 13:24:24', 1, 'rounded-lg', '00000000-0000-4000-8000-050000000001', '00000000-0000-4000-8000-049000000002'),
    ('00000000-0000-4000-8000-122000000003', '2025-09-09 01:43:37', '2025-09-17 05:32:37', 0, NULL, '00000000-0000-4000-8000-050000000002', '00000000-0000-4000-8000-049000000001');

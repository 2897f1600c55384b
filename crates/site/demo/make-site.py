#!/usr/bin/env python3
"""Writes demo/site.json, the 'for planet' demo site (see src/demo.rs for the format).
Run: python3 crates/site/demo/make-site.py"""
import json, os

def T(ru, en): return {"ru": ru, "en": en}
# `alt` serves any language without its own (`localizedAlt`, per language: file-storage.file).
def f(name, alt_ru, alt_en=None): return {"$file": name, "alt": alt_en or alt_ru, "localizedAlt": T(alt_ru, alt_en or alt_ru)}
def btn(ru, en, url, variant="default", **kw):
    d = {"title": T(ru, en), "url": url, "variant": variant}; d.update(kw); return d
def ba(variant, buttons, title=None, rel=None, **kw):
    d = {"variant": variant, "buttons-arrays-to-buttons": buttons}
    if title: d["title"] = title
    if rel: d["$rel"] = rel
    d.update(kw); return d
def feat(variant, title=None, subtitle=None, desc=None, fs=(), bas=(), **kw):
    d = {"variant": variant}
    if title: d["title"] = title
    if subtitle: d["subtitle"] = subtitle
    if desc: d["description"] = desc
    if fs: d["features-to-file-storage-module-files"] = list(fs)
    if bas: d["features-to-buttons-arrays"] = list(bas)
    d.update(kw); return d
def wb(variant, title=None, subtitle=None, desc=None, features=(), bas=(), sliders=(), fs=(), logos=(), anchor=None, **kw):
    d = {"module": "website-builder", "variant": variant}
    if title: d["title"] = title
    if subtitle: d["subtitle"] = subtitle
    if desc: d["description"] = desc
    if anchor: d["anchor"] = anchor
    if features: d["widgets-to-features"] = list(features)
    if bas: d["widgets-to-buttons-arrays"] = list(bas)
    if sliders: d["widgets-to-sliders"] = list(sliders)
    if fs: d["widgets-to-file-storage-module-files"] = list(fs)
    if logos: d["widgets-to-logotypes"] = list(logos)
    d.update(kw); return d
def mod(module, variant, **kw):
    d = {"module": module, "variant": variant}; d.update(kw); return d
def hw(*externals, rel=None):
    d = {"$external": list(externals)}
    if rel: d["$rel"] = rel
    return d
def page(url, title, desc, widgets, layout="main", meta=None, id=None, en=None, meta_en=None):
    """`en`: the English (title, description); with it the page gets metadata in both languages
    (`meta`/`meta_en` replace the generated ones). Pages that show one record are titled by it."""
    d = {"$entity": "host.page", "url": url, "title": title, "description": desc, "language": "ru",
         "pages-to-layouts": [{"$ref": layout}], "pages-to-widgets": widgets}
    metas = []
    if meta or en:
        metas.append(dict(meta or {"title": f"{title} — для планеты", "description": desc}, language="ru"))
    if meta_en or en:
        metas.append(dict(meta_en or {"title": f"{en[0]} — for planet", "description": en[1]}, language="en"))
    if metas: d["pages-to-metadata"] = metas
    if id: d["$id"] = id
    return d

records = []
R = records.append

# --- billing, ecommerce: currencies, the price key, the tree product, a store, categories ---
R({"$entity": "billing.currency", "$id": "rub", "slug": "rub", "symbol": "₽", "title": "Российский рубль", "adminTitle": "RUB", "isDefault": True})
R({"$entity": "billing.currency", "$id": "kzt", "slug": "kzt", "symbol": "₸", "title": "Казахстанский тенге", "adminTitle": "KZT"})
R({"$entity": "ecommerce.attribute-key", "$id": "price", "slug": "price", "adminTitle": "Price", "type": "price", "field": "number", "title": T("Цена", "Price")})
tree_widget = {"$entity": "website-builder.widget", "$id": "tree-requisites", "variant": "default", "adminTitle": "Tree: foreign payment details",
    "title": T("Оплата из-за рубежа", "Paying from abroad"),
    "widgets-to-features": [feat("for-planet-requisite", T("PayPal", "PayPal"), T("donate@forplanet.example", "donate@forplanet.example"),
        T("1 дерево = $2. Укажите в комментарии количество деревьев.", "1 tree = $2. Put the number of trees in the comment."))],
    "widgets-to-buttons-arrays": [ba("default", [btn("Оплатить через Telegram", "Pay through Telegram", "https://t.me/forplanet_pay_bot", "for-planet-link")])],
}
R(tree_widget)
R({"$entity": "ecommerce.product", "$id": "tree", "slug": "tree", "adminTitle": "Tree", "type": "one_off",
   "title": T("Дерево", "A tree"),
   "shortDescription": T("Одно дерево, посаженное волонтёрами в регионе, где лес нужнее всего.", "One tree, planted by volunteers where the forest is needed most."),
   "description": T("Саженец сосны или дуба, уход за ним в течение трёх лет и фотоотчёт с места посадки.", "A pine or oak sapling, three years of care and a photo report from the planting site."),
   "products-to-attributes": [
       {"number": "199", "^attribute-keys-to-attributes": ["price"], "attributes-to-billing-module-currencies": [{"$ref": "rub"}]},
       {"number": "995", "^attribute-keys-to-attributes": ["price"], "attributes-to-billing-module-currencies": [{"$ref": "kzt"}]},
   ],
   "products-to-file-storage-module-files": [f("tree.svg", "Дерево", "A tree")],
   "products-to-website-builder-module-widgets": [{"$ref": "tree-requisites"}],
})
R({"$entity": "ecommerce.product", "$id": "grove", "slug": "grove", "adminTitle": "Grove", "type": "one_off",
   "title": T("Роща из 10 деревьев", "A grove of 10 trees"),
   "shortDescription": T("Десять деревьев с табличкой вашего имени.", "Ten trees with a sign bearing your name."),
   "description": T("Небольшая роща: десять саженцев, табличка и ежегодный фотоотчёт.", "A small grove: ten saplings, a sign and a yearly photo report."),
   "products-to-attributes": [
       {"number": "1990", "^attribute-keys-to-attributes": ["price"], "attributes-to-billing-module-currencies": [{"$ref": "rub"}]},
   ],
   "products-to-file-storage-module-files": [f("forest.svg", "Роща", "A grove")],
})
R({"$entity": "ecommerce.category", "$id": "cat-trees", "slug": "trees", "adminTitle": "Trees", "title": T("Деревья", "Trees"),
   "subtitle": T("Посадки по всей стране", "Planting across the country"), "description": T("Выберите, сколько деревьев посадить.", "Choose how many trees to plant."),
   "categories-to-products": [{"$ref": "tree"}, {"$ref": "grove"}]})
R({"$entity": "ecommerce.store", "$id": "store", "slug": "for-planet", "adminTitle": "for planet store", "title": T("Магазин «для планеты»", "The for planet store"),
   "shortDescription": T("Всё, что помогает сажать лес.", "Everything that helps plant forests."),
   "description": T("Каждая покупка — это деревья в земле.", "Every purchase puts trees in the ground."),
   "stores-to-products": [{"$ref": "tree", "$rel": {"sku": "TREE-1"}}, {"$ref": "grove", "$rel": {"sku": "GROVE-10"}}]})

# --- blog ---
def article(slug, ru, en, sub_ru, sub_en, body_ru, body_en, products=()):
    d = {"$entity": "blog.article", "$id": "a-" + slug, "slug": slug, "adminTitle": en,
         "title": T(ru, en), "subtitle": T(sub_ru, sub_en), "description": T(body_ru, body_en),
         "articles-to-file-storage-module-files": [f("planting.svg", "Посадка", "Planting")]}
    if products: d["articles-to-ecommerce-module-products"] = [{"$ref": p} for p in products]
    return d
R(article("how-we-plant", "Как мы сажаем деревья", "How we plant trees", "От питомника до леса", "From nursery to forest",
    "Весной волонтёры забирают саженцы из питомника и высаживают их на подготовленных участках. Каждое дерево получает метку и попадает в отчёт.",
    "In spring volunteers collect saplings from the nursery and plant them on prepared plots. Every tree gets a tag and goes into the report.", products=("tree",)))
R(article("why-forests", "Зачем планете леса", "Why the planet needs forests", "Воздух, вода и дом для животных", "Air, water and a home for wildlife",
    "Лес удерживает воду, защищает почву от эрозии и поглощает углекислый газ. Один гектар леса за год поглощает до пяти тонн CO₂.",
    "Forests hold water, protect soil from erosion and absorb carbon dioxide. One hectare of forest absorbs up to five tonnes of CO₂ a year."))
R(article("first-report", "Первый отчёт сезона", "The season's first report", "12 000 саженцев в земле", "12,000 saplings in the ground",
    "За первые три недели сезона мы посадили 12 000 саженцев в пяти регионах. Приживаемость — 94 %.",
    "In the first three weeks of the season we planted 12,000 saplings in five regions. Survival rate: 94%."))
R({"$entity": "blog.category", "$id": "c-news", "slug": "news", "adminTitle": "News", "title": T("Новости", "News"), "subtitle": T("Что происходит на посадках", "What happens at the plantings"),
   "categories-to-articles": [{"$ref": "a-first-report"}, {"$ref": "a-how-we-plant"}]})
R({"$entity": "blog.category", "$id": "c-science", "slug": "science", "adminTitle": "Science", "title": T("Наука", "Science"), "subtitle": T("Почему это работает", "Why it works"),
   "categories-to-articles": [{"$ref": "a-why-forests"}]})

# --- crm: the contact form ---
R({"$entity": "crm.form", "$id": "contact", "slug": "contact", "adminTitle": "Contact form", "title": T("Напишите нам", "Write to us"),
   "subtitle": T("Ответим в течение дня", "We answer within a day"),
   "forms-to-inputs": [
       {"slug": "name", "adminTitle": "Name", "variant": "text-default", "type": "text", "isRequired": True, "label": T("Имя", "Name"), "placeholder": T("Как к вам обращаться", "Your name")},
       {"slug": "email", "adminTitle": "Email", "variant": "text-default", "type": "email", "isRequired": True, "label": T("Почта", "Email"), "placeholder": T("you@example.com", "you@example.com")},
       {"slug": "trees", "adminTitle": "Trees", "variant": "number-default", "type": "number", "label": T("Сколько деревьев хотите посадить", "How many trees would you like to plant"), "placeholder": T("10", "10")},
       {"slug": "message", "adminTitle": "Message", "variant": "textarea-default", "type": "textarea", "isRequired": True, "label": T("Сообщение", "Message"), "placeholder": T("Расскажите о себе или задайте вопрос", "Tell us about yourself or ask a question")},
   ]})

# --- layout: navbar before, footer after ---
nav = wb("navbar-for-planet-default", title=T("для планеты", "for planet"),
    logos=[{"url": "/", "title": T("для планеты", "for planet"), "logotypes-to-file-storage-module-files": [f("logo.svg", "для планеты", "for planet")]}],
    bas=[ba("default", [btn("Как это работает", "How it works", "/#how-it-works", "for-planet-link"), btn("Блог", "Blog", "/blog", "for-planet-link"),
                        btn("Магазин", "Store", "/ecommerce", "for-planet-link"), btn("Вопросы", "FAQ", "/#faq", "for-planet-link"), btn("Контакты", "Contacts", "/#contact", "for-planet-link")]),
         ba("default", [btn("Посадить дерево", "Plant a tree", "/#donate", "for-planet-primary")], rel={"variant": "additional"})])
foot = wb("footer-for-planet-default", title=T("для планеты", "for planet"),
    desc=T("Фонд «для планеты» сажает леса там, где они исчезли. Мы публикуем отчёт о каждом дереве.", "The for planet foundation plants forests where they have vanished. We publish a report on every tree."),
    logos=[{"url": "/", "title": T("для планеты", "for planet"), "logotypes-to-file-storage-module-files": [f("logo.svg", "для планеты", "for planet")]}],
    bas=[ba("for-planet-column-with-title", [btn("Как это работает", "How it works", "/#how-it-works", "for-planet-link-muted"), btn("Цель", "Our target", "/#target", "for-planet-link-muted"), btn("Реквизиты", "Bank details", "/#requisites", "for-planet-link-muted")], title=T("Проект", "Project")),
         ba("for-planet-column-with-title", [btn("Новости", "News", "/blog/categories/news", "for-planet-link-muted"), btn("Наука", "Science", "/blog/categories/science", "for-planet-link-muted"), btn("Все статьи", "All articles", "/blog", "for-planet-link-muted")], title=T("Блог", "Blog")),
         ba("for-planet-column-with-title", [btn("Войти", "Sign in", "/rbac/subject/authentication/select-method", "for-planet-link-muted"), btn("Регистрация", "Register", "/rbac/subject/authentication/email-and-password/registration", "for-planet-link-muted"), btn("Написать нам", "Contact us", "mailto:hello@forplanet.example", "for-planet-link-muted")], title=T("Участникам", "Members"))])
R({"$entity": "host.layout", "$id": "main", "slug": "main", "adminTitle": "Main layout", "title": "Main",
   "layouts-to-widgets": [hw(nav, rel={"variant": "default"}), hw(foot, rel={"variant": "additional"})]})

# --- home page blocks ---
heading = wb("content-block-for-planet-heading", anchor="top",
    title=T("Посадим миллион деревьев вместе", "Let's plant a million trees together"),
    subtitle=T("Каждое дерево — 199 ₽. Мы сажаем, ухаживаем и показываем результат.", "Each tree is 199 ₽. We plant, care for it and show you the result."),
    bas=[ba("for-planet-row", [btn("Посадить дерево", "Plant a tree", "/#donate", "for-planet-primary"), btn("Как это работает", "How it works", "/#how-it-works", "for-planet-outline")])],
    fs=[f("hero.svg", "Молодой лес на холмах", "A young forest on hills")])
target = wb("content-block-for-planet-target", anchor="target",
    # The campaign's numbers (`campaignOf` in web/src/modules/website-builder/variants.tsx).
    options={"goal": 1000000, "offset": 66713},
    title=T("Наша цель — 1 000 000 деревьев", "Our target: 1,000,000 trees"),
    subtitle=T("Столько нужно, чтобы вернуть лес на 3 000 гектаров выжженной земли.", "That is what it takes to bring forest back to 3,000 hectares of burnt land."),
    features=[feat("for-planet-text", T("Уже посажено", "Planted so far"), desc=T("Счётчик обновляется после каждой оплаты.", "The counter updates after every payment."))])
how = wb("content-block-for-planet-how-it-works", anchor="how-it-works", title=T("Как это работает", "How it works"),
    subtitle=T("Три шага от вашего решения до живого дерева", "Three steps from your decision to a living tree"),
    features=[feat("for-planet-how-it-works", T("Вы выбираете число деревьев", "You choose how many trees"), desc=T("Одно дерево стоит 199 ₽ — это саженец, посадка и уход.", "One tree costs 199 ₽: the sapling, the planting and the care."), fs=[f("seedling.svg", "Саженец", "A seedling")]),
              feat("for-planet-how-it-works", T("Волонтёры сажают", "Volunteers plant"), desc=T("Весной и осенью мы выезжаем на участки вместе с лесничествами.", "In spring and autumn we go out to the plots together with the forestry offices."), fs=[f("planting.svg", "Посадка", "Planting")]),
              feat("for-planet-how-it-works", T("Вы получаете отчёт", "You get a report"), desc=T("Фото, координаты и приживаемость — в закрытом канале участников.", "Photos, coordinates and survival rates in the members' channel."), fs=[f("forest.svg", "Лес", "A forest")])])
headlines = wb("content-block-for-planet-headlines", title=T("О нас пишут", "In the press"),
    features=[feat("for-planet-headline", T(t_ru, t_en), T(s_ru, s_en)) for (t_ru, t_en, s_ru, s_en) in [
        ("«Самая прозрачная экологическая кампания года»", "\u201cThe most transparent green campaign of the year\u201d", "Зелёный вестник", "Green Herald"),
        ("«Волонтёры вернули лес на пепелище»", "\u201cVolunteers brought the forest back to the burnt land\u201d", "Городские новости", "City News"),
        ("«199 рублей, которые превращаются в дерево»", "\u201c199 roubles that turn into a tree\u201d", "Экономика сегодня", "Economy Today"),
        ("«Каждое дерево — с координатами»", "\u201cEvery tree has coordinates\u201d", "Наука и жизнь", "Science & Life"),
        ("«Миллион деревьев — реальная цель»", "\u201cA million trees is a real target\u201d", "Радио Природа", "Nature Radio"),
        ("«Приживаемость 94 % — это много»", "\u201cA 94% survival rate is a lot\u201d", "Лесной журнал", "Forest Journal"),
        ("«Проект, к которому хочется присоединиться»", "\u201cA project you want to join\u201d", "Блог эколога", "An ecologist's blog")]])
slider = {"title": T("Наши посадки", "Our plantings"), "sliders-to-slides": [
    {"title": T("Сосны у реки", "Pines by the river"), "subtitle": T("Весна, 4 200 саженцев", "Spring, 4,200 saplings"), "slides-to-file-storage-module-files": [f("river.svg", "Деревья у реки", "Trees by a river")]},
    {"title": T("Дубрава", "The oak grove"), "subtitle": T("Осень, 2 800 саженцев", "Autumn, 2,800 saplings"), "url": "/blog/articles/first-report", "slides-to-file-storage-module-files": [f("forest.svg", "Дубрава", "Oak grove")]},
    {"title": T("Волонтёрский выезд", "A volunteer trip"), "subtitle": T("120 человек за один день", "120 people in one day"), "slides-to-file-storage-module-files": [f("planting.svg", "Волонтёры", "Volunteers")]}]}
gallery = wb("content-block-for-planet-gallery-and-text", anchor="gallery", title=T("Лес, который вырос", "A forest that grew"),
    desc=T("Пять лет назад здесь был пожар. Сегодня — молодой лес высотой в человеческий рост.", "Five years ago there was a fire here. Today it is a young forest as tall as a person."),
    sliders=[slider],
    features=[feat("for-planet-gallery", T("До", "Before"), fs=[f("planting.svg", "Участок до посадки", "The plot before planting")]), feat("for-planet-gallery", T("После", "After"), fs=[f("forest.svg", "Участок через пять лет", "The plot five years later")])])
gallery_inv = wb("content-block-for-planet-gallery-and-text-inversed", title=T("Вода возвращается", "Water comes back"),
    desc=T("Корни деревьев удерживают влагу: ручьи, пересохшие после пожара, снова текут.", "Tree roots hold moisture: streams that dried up after the fire flow again."),
    features=[feat("for-planet-gallery", T("Река весной", "The river in spring"), fs=[f("river.svg", "Река", "The river")])])
intro = wb("content-block-for-planet-create-subscription", anchor="donate", title=T("Посадите дерево сейчас", "Plant a tree now"),
    subtitle=T("Выберите количество — остальное сделаем мы", "Choose the number; we do the rest"))
donation = mod("ecommerce", "for-planet-products-list-block-default", anchor="donation", adminTitle="Tree donation",
    title=T("Пожертвование", "Donation"), **{"widgets-to-products": [{"$ref": "tree"}]})
timeline = wb("content-block-for-planet-timeline", anchor="timeline", title=T("Как растёт ваше дерево", "How your tree grows"),
    features=[feat("for-planet-timeline", T(a, b), T(c, d), T(e, g)) for (a, b, c, d, e, g) in [
        ("Оплата", "Payment", "День 1", "Day 1", "Вы выбираете число деревьев и оплачиваете.", "You choose the number of trees and pay."),
        ("Питомник", "Nursery", "Неделя 1", "Week 1", "Мы резервируем саженцы в питомнике.", "We reserve saplings at the nursery."),
        ("Посадка", "Planting", "Сезон", "Season", "Волонтёры высаживают деревья на участке.", "Volunteers plant the trees on the plot."),
        ("Уход", "Care", "3 года", "3 years", "Прополка, полив и замена погибших саженцев.", "Weeding, watering and replacing lost saplings."),
        ("Лес", "Forest", "Навсегда", "Forever", "Участок становится лесом и передаётся лесничеству.", "The plot becomes a forest and is handed to the forestry office.")]])
tiers = wb("content-block-for-planet-tiers", title=T("Выберите свой вклад", "Choose your contribution"),
    features=[feat("for-planet-white-card", T("1 дерево", "1 tree"), T("199 ₽", "199 ₽"), T("Саженец, посадка и три года ухода.", "A sapling, planting and three years of care."), bas=[ba("default", [btn("Выбрать", "Choose", "/#donate", "for-planet-outline")])]),
              feat("for-planet-black-card", T("10 деревьев", "10 trees"), T("1 990 ₽", "1,990 ₽"), T("Небольшая роща и табличка с вашим именем.", "A small grove and a sign with your name."), bas=[ba("default", [btn("Выбрать", "Choose", "/#donate", "for-planet-primary-extra")])]),
              feat("for-planet-white-card", T("100 деревьев", "100 trees"), T("19 900 ₽", "19,900 ₽"), T("Целый гектар леса и выезд на посадку.", "A whole hectare of forest and a trip to the planting."), bas=[ba("default", [btn("Выбрать", "Choose", "/#donate", "for-planet-outline")])])])
celebs = wb("content-block-for-planet-celebrities", title=T("Нас поддерживают", "They support us"),
    features=[feat("for-planet-celebrity", T(a, b), T(c, d), T(e, g), fs=[f(img, a, b)]) for (a, b, c, d, e, g, img) in [
        ("Анна Лесная", "Anna Lesnaya", "актриса", "actress", "Посадила 500 деревьев и привела друзей.", "Planted 500 trees and brought her friends.", "person-1.svg"),
        ("Игорь Кедров", "Igor Kedrov", "музыкант", "musician", "Отдаёт на деревья сбор с каждого концерта.", "Gives the takings of every concert to trees.", "person-2.svg"),
        ("Мария Берёзкина", "Maria Beryozkina", "учёный-эколог", "ecologist", "Консультирует проект по выбору участков.", "Advises the project on choosing plots.", "person-3.svg")]])
videos = wb("content-block-for-planet-videos", title=T("Посмотрите, как это было", "Watch how it went"),
    bas=[ba("default", [btn("Весенняя посадка", "Spring planting", "https://www.youtube-nocookie.com/embed/aqz-KE-bpKQ", "children"),
                        btn("Интервью с лесничим", "An interview with a forester", "https://www.youtube-nocookie.com/embed/ScMzIvxBSi4", "children"),
                        btn("Лес через пять лет", "The forest five years on", "https://www.youtube-nocookie.com/embed/LXb3EKWsInQ", "children")])],
    fs=[f("video.svg", "Обложка видео", "Video poster")])
mapw = wb("content-block-for-planet-map", anchor="map", title=T("Где мы сажаем", "Where we plant"),
    fs=[f("map.svg", "Карта регионов посадки", "Map of planting regions")],
    features=[feat("for-planet-text", T(a, b), T(c, d)) for (a, b, c, d) in [
        ("1. Подмосковье", "1. Moscow region", "120 000 деревьев", "120,000 trees"), ("2. Тверская область", "2. Tver region", "80 000 деревьев", "80,000 trees"),
        ("3. Урал", "3. The Urals", "95 000 деревьев", "95,000 trees"), ("4. Алтай", "4. Altai", "60 000 деревьев", "60,000 trees"), ("5. Казахстан", "5. Kazakhstan", "40 000 деревьев", "40,000 trees")]])
requisites = wb("content-block-for-planet-requisites", anchor="requisites", title=T("Реквизиты фонда", "Foundation bank details"),
    features=[feat("for-planet-requisite", T(a, b), T(c, c)) for (a, b, c) in [
        ("Получатель", "Recipient", "БФ «Для планеты»"), ("ИНН", "Tax number (INN)", "7700000000"), ("КПП", "KPP", "770001001"),
        ("Расчётный счёт", "Account", "40703810000000000001"), ("Банк", "Bank", "ПАО «Зелёный банк»"), ("БИК", "BIC", "044525000")]])
qr = wb("content-block-for-planet-qr-code", title=T("Оплата по QR-коду", "Pay with a QR code"),
    features=[feat("for-planet-qr-code", T("Наведите камеру телефона", "Point your phone's camera"), T("Откроется страница оплаты", "The payment page opens"), fs=[f("qr.svg", "QR-код для пожертвования", "QR code for a donation")])])
faq = wb("content-block-for-planet-faq", anchor="faq", title=T("Частые вопросы", "Frequently asked questions"),
    features=[feat("for-planet-faq", T(a, b), desc=T(c, d)) for (a, b, c, d) in [
        ("Куда идут деньги?", "Where does the money go?", "199 ₽ — это саженец (60 ₽), посадка (70 ₽) и три года ухода (69 ₽). Отчёт о расходах публикуется каждый квартал.", "199 ₽ covers the sapling (60 ₽), the planting (70 ₽) and three years of care (69 ₽). We publish a spending report every quarter."),
        ("Как узнать, где моё дерево?", "How do I find my tree?", "После оплаты чек приходит на почту. Отправьте его в поддержку — и вы получите доступ к каналу с отчётами и координатами.", "The receipt arrives by email after payment. Send it to support and you get access to the channel with reports and coordinates."),
        ("Можно ли приехать на посадку?", "Can I come to a planting?", "Да! Выезды проходят весной и осенью. Запишитесь через форму ниже.", "Yes! Trips happen in spring and autumn. Sign up with the form below."),
        ("Что, если дерево погибнет?", "What if the tree dies?", "Мы три года ухаживаем за участком и заменяем погибшие саженцы бесплатно.", "We care for the plot for three years and replace lost saplings for free.")]])
contact = mod("crm", "default", anchor="contact", adminTitle="Contact", title=T("Связаться с нами", "Contact us"), **{"widgets-to-forms": [{"$ref": "contact"}]})

home_meta = {"title": "Для планеты — посадим миллион деревьев", "description": "Благотворительная кампания: одно дерево — 199 ₽. Сажаем, ухаживаем и показываем результат.",
             "keywords": "посадка деревьев, экология, благотворительность, лес", "opengraphTitle": "Посадим миллион деревьев вместе",
             "opengraphDescription": "Одно дерево — 199 ₽. Присоединяйтесь к кампании «для планеты».", "opengraphType": "website", "opengraphSiteName": "для планеты",
             "twitterCard": "summary_large_image", "twitterSite": "@forplanet", "twitterTitle": "Посадим миллион деревьев вместе"}
home_meta_en = {"title": "For planet — let's plant a million trees", "description": "A charity campaign: one tree is 199 ₽. We plant, care for it and show you the result.",
                "keywords": "tree planting, ecology, charity, forest", "opengraphTitle": "Let's plant a million trees together",
                "opengraphDescription": "One tree is 199 ₽. Join the 'for planet' campaign.", "opengraphType": "website", "opengraphSiteName": "for planet",
                "twitterCard": "summary_large_image", "twitterSite": "@forplanet", "twitterTitle": "Let's plant a million trees together"}
R({"$entity": "host.metadata", "variant": "primary", "language": "ru", "title": "для планеты", "description": "Фонд «для планеты»: сажаем леса и публикуем отчёт о каждом дереве.",
   "keywords": "лес, деревья, экология", "author": "Фонд «для планеты»", "opengraphSiteName": "для планеты", "twitterSite": "@forplanet"})
R({"$entity": "host.metadata", "variant": "primary", "language": "en", "title": "for planet", "description": "The 'for planet' foundation: we plant forests and report on every tree.",
   "keywords": "forest, trees, ecology", "author": "The 'for planet' foundation", "opengraphSiteName": "for planet", "twitterSite": "@forplanet"})
R(page("/", "Главная", "Посадим миллион деревьев вместе", [hw(w) for w in [heading, target, how, headlines, gallery, intro, donation, timeline, tiers, gallery_inv, celebs, videos, mapw, requisites, qr, faq, contact]], meta=home_meta, meta_en=home_meta_en))

# --- blog pages ---
R(page("/blog", "Блог", "Новости и статьи кампании", en=("Blog", "News and articles of the campaign"), widgets=[
    hw(wb("content-block-for-planet-heading", title=T("Блог", "Blog"), subtitle=T("Новости с посадок и наука о лесе", "News from the plantings and forest science"))),
    hw(mod("blog", "category-list-default", adminTitle="Categories", title=T("Рубрики", "Categories"))),
    hw(mod("blog", "article-list-default", adminTitle="All articles", title=T("Все статьи", "All articles")))]))
R(page("/blog/categories/[blog.categories.slug]", "Рубрика", "Статьи рубрики", [hw(mod("blog", "category-overview-default", adminTitle="Category overview"))]))
R(page("/blog/articles/[blog.articles.slug]", "Статья", "Статья блога", [hw(mod("blog", "article-overview-default", adminTitle="Article overview")),
    hw(mod("blog", "article-overview-ecommerce-module-product-list-default", adminTitle="Article products", title=T("Поддержать проект", "Support the project")))]))
# --- store pages ---
R(page("/ecommerce", "Магазин", "Деревья и рощи", en=("Store", "Trees and groves"), widgets=[
    hw(mod("ecommerce", "product-list-default", adminTitle="Products", title=T("Посадить", "Plant"))),
    hw(mod("ecommerce", "category-list-default", adminTitle="Categories", title=T("Категории", "Categories"))),
    hw(mod("ecommerce", "store-list-default", adminTitle="Stores", title=T("Магазины", "Stores")))]))
R(page("/ecommerce/products/[ecommerce.products.slug]", "Товар", "Товар магазина", [hw(mod("ecommerce", "product-overview-default", adminTitle="Product overview"))]))
R(page("/ecommerce/categories/[ecommerce.categories.slug]", "Категория", "Категория магазина", [hw(mod("ecommerce", "category-overview-default", adminTitle="Category overview"))]))
R(page("/ecommerce/stores/[ecommerce.stores.slug]", "Магазин", "Магазин", [hw(mod("ecommerce", "store-overview-default", adminTitle="Store overview"))]))
# --- accounts ---
A = "/rbac/subject/authentication"
for url, variant, title, title_en in [(A + "/select-method", "subject-authentication-select-method-default", "Вход", "Sign in"),
                            (A + "/email-and-password/registration", "subject-authentication-email-and-password-registration-form-default", "Регистрация", "Registration"),
                            (A + "/email-and-password/forgot-password", "subject-authentication-email-and-password-forgot-password-form-default", "Восстановление пароля", "Forgot password"),
                            (A + "/email-and-password/reset-password", "subject-authentication-email-and-password-reset-password-form-default", "Новый пароль", "New password"),
                            (A + "/logout", "subject-authentication-logout-action-default", "Выход", "Sign out"),
                            ("/rbac/subjects/settings", "subject-identity-settings-default", "Настройки", "Settings")]:
    R(page(url, title, title, [hw(mod("rbac", variant, adminTitle=title))], en=(title_en, title_en)))
R(page("/rbac/subjects", "Участники", "Участники", en=("Members", "Members"), widgets=[hw(mod("rbac", "subject-list-default", adminTitle="Subjects", title=T("Участники", "Members")))]))
R(page("/rbac/subjects/[rbac.subjects.slug]", "Участник", "Профиль участника", [hw(mod("rbac", "subject-overview-default", adminTitle="Subject"))]))
R(page("/social/profiles/[social.profiles.slug]", "Профиль", "Профиль", [hw(mod("social", "profile-overview-default", adminTitle="Profile"))]))
# --- the donation paid in the card provider's own widget (SPEC §2: another variant of the button) ---
R(page("/donate", "Пожертвовать картой", "Посадите деревья: оплата картой в форме банка", en=("Donate by card", "Plant trees: pay by card in the bank's form"), widgets=[
    hw(mod("ecommerce", "for-planet-products-list-block-card-default", anchor="card-donation", adminTitle="Tree donation by card",
        title=T("Посадить деревья — оплата картой", "Plant trees — pay by card"), **{"widgets-to-products": [{"$ref": "tree"}]}))]))
# --- errors ---
R(page("/404", "Страница не найдена", "Такой страницы нет", en=("Page not found", "There is no such page"), widgets=[hw(wb("content-block-for-planet-heading", title=T("Страница не найдена", "Page not found"),
    subtitle=T("Возможно, она переехала. Начните с главной.", "It may have moved. Start from the home page."), bas=[ba("for-planet-row", [btn("На главную", "Home", "/", "for-planet-primary")])]))]))
R(page("/500", "Ошибка", "Что-то пошло не так", en=("Error", "Something went wrong"), widgets=[hw(wb("content-block-for-planet-heading", title=T("Что-то пошло не так", "Something went wrong"),
    subtitle=T("Мы уже разбираемся. Попробуйте обновить страницу.", "We are on it. Try reloading the page."), bas=[ba("for-planet-row", [btn("На главную", "Home", "/", "for-planet-primary")])]))]))

# Module widgets carry their relation children; host widgets are made through $external.
out = {"records": records}
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "site.json"), "w", encoding="utf-8") as fh:
    json.dump(out, fh, ensure_ascii=False, indent=1)
    fh.write("\n")
print(len(records), "root records")

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen, within } from "@testing-library/react";
import { MemoryRouter, Route, Routes } from "react-router";
import i18n from "@/i18n";
import { reply, stubFetch } from "@/test-fetch";
import SearchScreen from "./search";

function at(url: string) {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MemoryRouter initialEntries={[url]}>
        <Routes>
          <Route path="/:lang/search" element={<SearchScreen />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe("the site's search screen", () => {
  beforeEach(async () => {
    await i18n.changeLanguage("ru");
  });
  afterEach(async () => {
    vi.unstubAllGlobals();
    await i18n.changeLanguage("en");
  });

  it("asks the server in the page's language and shows each result with the words found marked", async () => {
    const sent = stubFetch(() =>
      reply(200, {
        data: {
          query: "деревья",
          tooShort: false,
          results: [
            {
              entity: "blog.article",
              kind: "Статья",
              url: "/ru/blog/articles/how-we-plant",
              title: [
                { text: "Как мы сажаем ", match: false },
                { text: "дерев", match: true },
                { text: "ья", match: false },
              ],
              snippet: [{ text: "Весной волонтёры…", match: false }],
            },
          ],
        },
      }),
    );
    at("/ru/search?q=%D0%B4%D0%B5%D1%80%D0%B5%D0%B2%D1%8C%D1%8F");
    const list = await screen.findByRole("list", { name: "Поиск: деревья" });
    const link = within(list).getByRole("link", { name: /^Как мы сажаем/ });
    expect(link).toHaveAttribute("href", "/ru/blog/articles/how-we-plant");
    expect(link).toHaveTextContent("Как мы сажаем деревья");
    expect(within(link).getByText("дерев").tagName).toBe("MARK");
    expect(screen.getByText("1 результат по запросу «деревья»")).toBeInTheDocument();
    expect(sent[0]?.url).toBe(`/api/host/search?q=${encodeURIComponent("деревья")}&lang=ru`);
    // The form keeps the query and sends the visitor back here with another one.
    const box = screen.getByRole("searchbox", { name: "Поиск по сайту" });
    expect(box).toHaveValue("деревья");
    expect(box.closest("form")).toHaveAttribute("action", "/ru/search");
  });

  it("says when a word is too short, when nothing is found, and asks nothing without a query", async () => {
    let answer: object = { query: "в", tooShort: true, results: [] };
    const sent = stubFetch(() => reply(200, { data: answer }));
    at("/ru/search?q=в");
    await screen.findByText("Введите слово хотя бы из трёх букв.");
    answer = { query: "бегемот", tooShort: false, results: [] };
    at("/ru/search?q=бегемот");
    await screen.findByText("По запросу «бегемот» ничего не нашлось. Попробуйте другое слово или короче.");
    const before = sent.length;
    at("/ru/search");
    expect(screen.getAllByRole("searchbox").at(-1)).toHaveValue("");
    expect(sent.length).toBe(before);
  });
});

import i18next from "@/i18n";
import { ApiError } from "@/api/http";
import { errorMessage, fieldMessage } from "./form-errors";

const ru = i18next.getFixedT("ru");
const en = i18next.getFixedT("en");

describe("server errors in the page's language", () => {
  it("a known error message becomes its catalogue entry", () => {
    const e = new ApiError(401, "unauthorized", "wrong email or password");
    expect(errorMessage(e, ru)).toBe("Неверный email или пароль.");
    expect(errorMessage(e, en)).toBe("Wrong email or password.");
  });

  it("a known field message wins over the error's own message, with its numbers", () => {
    const e = new ApiError(422, "invalid_input", "password: must be at least 8 characters", { password: ["must be at least 8 characters"] });
    expect(errorMessage(e, ru)).toBe("Не короче 8 символов");
    expect(errorMessage(e, en)).toBe("At least 8 characters");
    expect(fieldMessage("is already registered; sign in or reset the password", ru)).toBe("Этот email уже зарегистрирован: войдите или сбросьте пароль.");
    expect(fieldMessage("must be from 1 to 1000", en)).toBe("Enter a number from 1 to 1000");
  });

  it("a rate limit says when to try again, in the right plural", () => {
    const e = new ApiError(429, "too_many_requests", "too many requests; try again in 3 s");
    expect(errorMessage(e, ru)).toBe("Слишком много попыток; попробуйте снова через 3 секунды.");
    expect(errorMessage(e, en)).toBe("Too many attempts; try again in 3 seconds.");
  });

  it("an unknown message falls back to its code's sentence, an unknown code to the server's words", () => {
    expect(errorMessage(new ApiError(409, "conflict", "several stores sell this product; choose one"), ru)).toBe("Пока вы смотрели, что-то изменилось. Обновите страницу и попробуйте ещё раз.");
    expect(errorMessage(new ApiError(500, "internal", "Internal server error"), ru)).toBe("Что-то пошло не так на нашей стороне; попробуйте позже.");
    expect(errorMessage(new ApiError(418, "teapot", "I am a teapot"), ru)).toBe("I am a teapot");
    expect(errorMessage(new ApiError(502, "error", "Bad Gateway"), en)).toBe("The service is unavailable for a moment; try again shortly.");
    expect(fieldMessage("is shaped oddly", ru)).toBe("is shaped oddly");
  });

  it("a call that got no answer, and any other failure, say so in the page's language", () => {
    expect(errorMessage(new TypeError("Failed to fetch"), ru)).toBe("Нет связи с сервером; проверьте подключение и попробуйте ещё раз.");
    expect(errorMessage(new Error("boom"), ru, "Не удалось")).toBe("Не удалось");
    expect(errorMessage("boom", en)).toBe("Something went wrong; try again");
  });
});

import { useEffect } from "react";

/**
 * Names the browser tab after the screen. The site route around a built-in screen titles the
 * tab once it has mounted (its effect runs after ours), so ours is set just after it.
 */
export function useScreenTitle(title: string) {
  useEffect(() => {
    let live = true;
    queueMicrotask(() => {
      if (live) document.title = title;
    });
    return () => {
      live = false;
    };
  }, [title]);
}

// The form's own checks, before anything is sent; the server checks again with the same limits.

const MAX_CATEGORY = 64; // src/memspace/services/memories/memory_rules.py MAX_CATEGORY_CHARS

export function contentProblem(content: string, maxChars: number): string | null {
  const text = content.trim();
  if (!text) return "Write the fact first.";
  if (text.length > maxChars) {
    return `Too long: ${text.length.toLocaleString()} of ${maxChars.toLocaleString()} characters. `
      + "Split it into separate facts, or upload it as a document.";
  }
  return null;
}

export function categoryProblem(category: string): string | null {
  return category.trim().length > MAX_CATEGORY ? `A category has at most ${MAX_CATEGORY} characters.` : null;
}

/** Show `problem` on `field` (or clear it) and return whether the field is fine. */
export function mark(field: HTMLInputElement | HTMLTextAreaElement, message: HTMLElement,
  problem: string | null): boolean {
  field.setAttribute("aria-invalid", problem ? "true" : "false");
  message.textContent = problem ?? "";
  return problem === null;
}

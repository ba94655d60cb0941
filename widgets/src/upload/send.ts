// Sending the file itself: one multipart POST to memspace's REST endpoint, authorised by an
// upload ticket (the view never holds the API key). XMLHttpRequest rather than fetch because
// only it reports upload progress.

export interface Ticket {
  ticket: string;
  space: string;
  uploadUrl: string;
  maxBytes: number;
}

export interface Sent {
  id: string;
  status: string;
  duplicate?: boolean;
}

export class UploadRefused extends Error {}

export function send(ticket: Ticket, file: File, title: string,
  onProgress: (fraction: number) => void): Promise<Sent> {
  const form = new FormData();
  form.append("file", file, file.name);
  form.append("space", ticket.space);
  if (title.trim()) form.append("title", title.trim());
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("POST", ticket.uploadUrl);
    request.setRequestHeader("Authorization", `Bearer ${ticket.ticket}`);
    request.upload.addEventListener("progress", (e) => { if (e.lengthComputable) onProgress(e.loaded / e.total); });
    request.addEventListener("load", () => {
      let body: { message?: string } & Partial<Sent> = {};
      try {
        body = JSON.parse(request.responseText);
      } catch {
        // a proxy's HTML error page: reported by status below
      }
      if (request.status >= 200 && request.status < 300 && body.id) resolve(body as Sent);
      else reject(new UploadRefused(body.message ?? `the server answered ${request.status}`));
    });
    request.addEventListener("error", () => reject(new UploadRefused(
      `could not reach ${new URL(ticket.uploadUrl).origin}; is the memspace server reachable from this app?`)));
    request.send(form);
  });
}

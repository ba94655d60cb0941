// The JSON shapes memspace's tools return (src/memspace/present/json.py and records.py name the fields).

export type Access = "read" | "readwrite";
export type RelationType = "UPDATES" | "EXTENDS" | "DERIVES";

export interface Space {
  id: string;
  slug: string;
  name: string;
  description: string;
  createdAt: string;
  lastActiveAt: string;
  access: Access;
  activeMemories: number;
  documents: number;
  isActive: boolean;
  isDefault: boolean;
}

export interface Memory {
  id: string;
  content: string;
  category: string;
  active: boolean;
  createdAt: string;
  createdBy: string;
  documentId?: string;
  invalidatedAt?: string;
  invalidatedBy?: string;
  forgetReason?: string;
  forgottenBy?: string;
}

export interface Handoff {
  id: string;
  agent: string;
  topic: string;
  summary: string;
  done: string[];
  nextSteps: string[];
  openQuestions: string[];
  links: string[];
  createdAt: string;
  createdBy: string;
}

export interface Neighbour extends Memory {
  hops: number;
  relation: RelationType;
  direction: "in" | "out";
}

export interface Relation {
  from: string | null;
  to: string;
  type: RelationType;
  createdAt?: string;
  createdBy?: string;
  reason?: string;
}

export interface DocumentInfo {
  id: string;
  title: string;
  kind: string;
  sizeBytes: number;
  status: "queued" | "processing" | "done" | "failed";
  factCount: number;
  chunksTotal: number;
  chunksDone: number;
  createdAt: string;
  createdBy: string;
  error?: string;
}

export interface AddResult {
  status: "created" | "duplicate";
  mode: "extracted" | "flat";
  space: string;
  memories: Memory[];
  relations: Relation[];
  superseded: string[];
  warnings: string[];
}

export interface MemoryDetail {
  space: string;
  memory: Memory;
  relations: Relation[];
  relatedMemories: Neighbour[];
  source: DocumentInfo | null;
}

/** The Pulumi project name: the namespace of every stack config key (`nvcf-self-managed:<key>`). */
export const PROJECT = "nvcf-self-managed";
